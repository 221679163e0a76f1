#!/usr/bin/env python3
"""rsp record run through sudo or pkexec runs its command as the invoking
user: that user's uid, group, supplementary groups, HOME, USER and LOGNAME,
and the recording belongs to that user.

As root, with the variables sudo sets (SUDO_UID, SUDO_GID, SUDO_USER; also
with SUDO_GID another group, as after `sg`) and then the one pkexec sets
(PKEXEC_UID, the group taken from the passwd entry), rsp record runs `sh -c 'id -u; id -g; id -G; ...'` for a test user
who is also in a group of its own; the command's output must be that
user's, as the user databases tell them (getent, id).  A statically linked
rsp asks getent(1) and id(1) for the user: a static C library that loads
NSS modules (systemd's, Debian's default) crashes (it did: SIGSEGV in
_nss_systemd_initgroups_dyn)."""
import grp
import os
import pwd
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402

TEST_USER = "rsp-test-user"  # record-errors.py's too
TEST_GROUP = "rsp-test-group"
SCRIPT = 'id -u; id -g; id -G; echo "$HOME"; echo "$USER"; echo "$LOGNAME"'


def ensure_user():
    for tool, argv in (("groupadd", [TEST_GROUP]), ("useradd", ["-m", "-s", "/bin/sh", TEST_USER])):
        try:
            (grp.getgrnam if tool == "groupadd" else pwd.getpwnam)(argv[-1])
            continue
        except KeyError:
            pass
        exe = shutil.which(tool) or "/usr/sbin/" + tool
        t.run([exe] + argv, timeout=60)
    group = grp.getgrnam(TEST_GROUP)
    if TEST_USER not in group.gr_mem:
        t.run([shutil.which("usermod") or "/usr/sbin/usermod", "-a", "-G", TEST_GROUP, TEST_USER], timeout=60)
    return pwd.getpwnam(TEST_USER), grp.getgrnam(TEST_GROUP).gr_gid


def main():
    t.require_perf_and_root()
    rsp = t.rsp_path()
    user, extra_gid = ensure_user()
    workdir = tempfile.mkdtemp(prefix="rsp-user-", dir=os.environ.get("RSP_BUILD_ROOT"))
    os.chmod(workdir, 0o777)  # the recording is written as the user
    try:
        # sudo after `sg rsp-test-group`: SUDO_GID is that group, and the
        # groups are getgrouplist(user, it): the passwd entry's group is not
        # among them (the user is not listed as its member)
        for how, env_add, gid, groups in (
                ("sudo", {"SUDO_UID": str(user.pw_uid), "SUDO_GID": str(user.pw_gid), "SUDO_USER": TEST_USER},
                 user.pw_gid, {user.pw_gid, extra_gid}),
                ("sudo after sg", {"SUDO_UID": str(user.pw_uid), "SUDO_GID": str(extra_gid),
                                   "SUDO_USER": TEST_USER}, extra_gid, {extra_gid}),
                ("pkexec", {"PKEXEC_UID": str(user.pw_uid)}, user.pw_gid, {user.pw_gid, extra_gid})):
            env = {k: v for k, v in os.environ.items()
                   if k not in ("SUDO_UID", "SUDO_GID", "SUDO_USER", "PKEXEC_UID")}
            env.update(env_add)
            env["HOME"], env["USER"], env["LOGNAME"] = "/root", "root", "root"
            out = os.path.join(workdir, how.replace(" ", "-") + ".rsp")
            proc = t.run([rsp, "record", "-o", out, "--", "sh", "-c", SCRIPT], timeout=300, check=False,
                         env=env, cwd=workdir)
            if proc.returncode != 0:
                t.fail("rsp record as %s (%s): exit %d\nstdout: %s\nstderr: %s"
                       % (TEST_USER, how, proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:]))
            lines = proc.stdout.splitlines()
            if len(lines) < 6:
                t.fail("%s: the command printed %r" % (how, proc.stdout))
            got = {"uid": lines[0], "gid": lines[1], "groups": set(int(g) for g in lines[2].split()),
                   "HOME": lines[3], "USER": lines[4], "LOGNAME": lines[5]}
            want = {"uid": str(user.pw_uid), "gid": str(gid), "groups": groups,
                    "HOME": user.pw_dir, "USER": TEST_USER, "LOGNAME": TEST_USER}
            wrong = ["%s %r, not %r" % (k, got[k], want[k]) for k in want if got[k] != want[k]]
            if wrong:
                t.fail("%s: the command ran with %s" % (how, "; ".join(wrong)))
            st = os.stat(out)
            if (st.st_uid, st.st_gid) != (user.pw_uid, gid):
                t.fail("%s: the recording belongs to %d:%d, not to %s (%d:%d)"
                       % (how, st.st_uid, st.st_gid, TEST_USER, user.pw_uid, gid))
            t.log("%s: the command ran as %s (uid %s, groups %s, HOME %s); the recording is theirs"
                  % (how, TEST_USER, got["uid"], sorted(got["groups"]), got["HOME"]))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    t.log("PASS")


if __name__ == "__main__":
    main()
