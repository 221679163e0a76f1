// Reads a gzipped pprof profile with pprof-format (an independent decoder
// of profile.proto) and prints what the export test compares, as JSON:
// the sample types, the time per "category" label, per leaf frame, the
// number of samples, locations and functions.
// Usage: node read-pprof.js PPROF-FORMAT-DIR FILE
'use strict';
const path = require('path');
const fs = require('fs');
const zlib = require('zlib');
const { Profile } = require(path.resolve(process.argv[2], 'dist', 'commonjs', 'index.js'));

const profile = Profile.decode(zlib.gunzipSync(fs.readFileSync(process.argv[3])));
const str = (i) => profile.stringTable.strings[Number(i)];
const functions = new Map(profile.function.map((f) => [String(f.id), str(f.name)]));
const locations = new Map(profile.location.map((l) => [String(l.id), l]));
const byCategory = {};
const byLeaf = {};
const badLeaf = [];
const roots = {};
for (const s of profile.sample) {
  const ns = BigInt(s.value[0]);
  let category = null;
  for (const l of s.label) if (str(l.key) === 'category') category = str(l.str);
  byCategory[category] = (byCategory[category] || 0n) + ns;
  const frames = s.locationId.map((id) => functions.get(String(locations.get(String(id)).line[0].functionId)));
  const leaf = frames[0];
  byLeaf[leaf] = (byLeaf[leaf] || 0n) + ns;
  const root = frames[frames.length - 1];
  roots[root] = (roots[root] || 0n) + ns;
}
const big = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v.toString()]));
console.log(JSON.stringify({
  sample_types: profile.sampleType.map((t) => [str(t.type), str(t.unit)]),
  period_type: profile.periodType ? [str(profile.periodType.type), str(profile.periodType.unit)] : null,
  duration_nanos: String(profile.durationNanos),
  samples: profile.sample.length,
  locations: profile.location.length,
  functions: profile.function.length,
  by_category: big(byCategory),
  by_leaf: big(byLeaf),
  roots: big(roots),
}));
