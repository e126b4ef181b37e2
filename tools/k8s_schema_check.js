// An independent check of rendered manifests (not Tenbin code, not part of the build): validates every
// object of the YAML files given with the npm package kubernetes-models (4.5.1 checked): the Kubernetes
// API's JSON schemas for types, formats and required fields. It does not refuse unknown fields; the
// k8s/tests module's strict client-java deserialization does. Usage:
//   npm install --prefix /tmp/kmv kubernetes-models js-yaml
//   kubectl kustomize k8s/kustomize/overlays/cpu > /tmp/cpu.yaml
//   NODE_PATH=/tmp/kmv/node_modules node tools/k8s_schema_check.js /tmp/cpu.yaml k8s/kustomize/base/tenbin.yaml
const fs = require('fs');
const yaml = require('js-yaml');
const modules = {
  'v1': 'kubernetes-models/v1', 'apps/v1': 'kubernetes-models/apps/v1',
  'autoscaling/v2': 'kubernetes-models/autoscaling/v2', 'policy/v1': 'kubernetes-models/policy/v1',
  'networking.k8s.io/v1': 'kubernetes-models/networking.k8s.io/v1', 'batch/v1': 'kubernetes-models/batch/v1',
  'rbac.authorization.k8s.io/v1': 'kubernetes-models/rbac.authorization.k8s.io/v1',
};
let ok = 0, bad = 0, skipped = [];
for (const file of process.argv.slice(2)) {
  for (const doc of yaml.loadAll(fs.readFileSync(file, 'utf8'))) {
    if (!doc) continue;
    const mod = modules[doc.apiVersion];
    if (!mod) { skipped.push(doc.apiVersion + '/' + doc.kind); continue; }
    const Kind = require(mod)[doc.kind];
    try { new Kind(doc).validate(); ok++; }
    catch (e) { bad++; console.log('INVALID', file, doc.kind, doc.metadata && doc.metadata.name, e.message.slice(0, 300)); }
  }
}
console.log(JSON.stringify({ valid: ok, invalid: bad, skipped }));
process.exit(bad ? 1 : 0);
