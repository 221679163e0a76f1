#!/bin/bash
# Scenario "build": the paper's make of a protobuf object file.  make runs
# protoc on a .proto file (the address book of protobuf's own tutorial,
# with a few more messages), then g++ on the generated C++ to a .o, with
# the page cache dropped first so that the build reads protoc, the
# compiler and the protobuf headers from the disk, as in the paper.
#
# Usage: sudo scenarios/build.sh     (outputs in build/scenarios/build.*)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
scen_init build
scen_install make g++ protobuf-compiler libprotobuf-dev pkg-config

src=$SCEN_WORK/src
mkdir -p "$src"
cat >"$src/addressbook.proto" <<'PROTO'
syntax = "proto3";
package tutorial;

import "google/protobuf/timestamp.proto";

message Person {
  string name = 1;
  int32 id = 2;
  string email = 3;

  enum PhoneType {
    MOBILE = 0;
    HOME = 1;
    WORK = 2;
  }

  message PhoneNumber {
    string number = 1;
    PhoneType type = 2;
  }

  repeated PhoneNumber phones = 4;
  google.protobuf.Timestamp last_updated = 5;
  map<string, string> attributes = 6;
}

message Address {
  string street = 1;
  string city = 2;
  string postcode = 3;
  string country = 4;
}

message Organisation {
  string name = 1;
  repeated Person members = 2;
  Address address = 3;
  oneof contact {
    string phone = 4;
    string web = 5;
  }
}

message AddressBook {
  repeated Person people = 1;
  repeated Organisation organisations = 2;
}
PROTO

cat >"$src/Makefile" <<'MAKE'
CXXFLAGS = -O2 $(shell pkg-config --cflags protobuf)

addressbook.pb.o: addressbook.pb.cc addressbook.pb.h
	$(CXX) $(CXXFLAGS) -c addressbook.pb.cc -o $@

addressbook.pb.cc addressbook.pb.h: addressbook.proto
	protoc --cpp_out=. addressbook.proto
MAKE

scen_say "dropping the page cache"
scen_drop_caches
scen_record -- make -C "$src"
[ -s "$src/addressbook.pb.o" ] || scen_die "make produced no addressbook.pb.o"
