// The local registry's process (test/helpers/registry/local-registry.ts starts it): Verdaccio
// with config.yaml, its storage and uplink filled in from the arguments, listening on a free
// loopback port that it prints as `listening <port>` once it accepts requests.
//   node server.mjs <Verdaccio's install folder> <storage folder> <uplink registry URL> [<proxied packages' folder>]
// (Verdaccio is installed from this folder's package.json and lock file into a folder of the
// root node_modules/, outside test/: local-registry.ts does it.)
// What is published here (changelog-sync) stays in <storage folder>, this registry's own. The
// packages proxied from the uplink may be kept in a folder that outlives it and that other
// registries share, so that a second registry serves them without fetching them again.
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';

const [installed, storage, uplink, proxied] = process.argv.slice(2);
if (!installed || !storage || !uplink) {
  console.error('usage: node server.mjs <install folder> <storage folder> <uplink registry URL> [<proxied packages folder>]');
  process.exit(2);
}
const { parseConfigFile, runServer } = createRequire(join(installed, 'package.json'))('verdaccio');
const config = parseConfigFile(new URL('config.yaml', import.meta.url).pathname);
config.self_path = `${storage}/config.yaml`;
config.storage = storage;
config.auth.htpasswd.file = `${storage}/htpasswd`;
config.uplinks.upstream.url = uplink;
if (proxied) {
  // A package's `storage` is a folder relative to the global one.
  for (const [pattern, rule] of Object.entries(config.packages)) if (rule.proxy) config.packages[pattern] = { ...rule, storage: relative(storage, proxied) };
}
const server = await runServer(config);
server.listen(0, '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
