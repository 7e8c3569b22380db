// The local registry's process (test/helpers/registry/local-registry.ts starts it): Verdaccio
// with config.yaml, its storage and uplink filled in from the arguments, listening on a free
// loopback port that it prints as `listening <port>` once it accepts requests.
//   node server.mjs <storage folder> <uplink registry URL> [<proxied packages' folder>]
// What is published here (changelog-sync) stays in <storage folder>, this registry's own. The
// packages proxied from the uplink may be kept in a folder that outlives it and that other
// registries share, so that a second registry serves them without fetching them again.
import { relative } from 'node:path';
import { parseConfigFile, runServer } from 'verdaccio';

const [storage, uplink, proxied] = process.argv.slice(2);
if (!storage || !uplink) {
  console.error('usage: node server.mjs <storage folder> <uplink registry URL> [<proxied packages folder>]');
  process.exit(2);
}
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
