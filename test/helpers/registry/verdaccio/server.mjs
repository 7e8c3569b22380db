// The local registry's process (test/helpers/registry/local-registry.ts starts it): Verdaccio
// with config.yaml, its storage and uplink filled in from the arguments, listening on a free
// loopback port that it prints as `listening <port>` once it accepts requests.
//   node server.mjs <storage folder> <uplink registry URL>
import { parseConfigFile, runServer } from 'verdaccio';

const [storage, uplink] = process.argv.slice(2);
if (!storage || !uplink) {
  console.error('usage: node server.mjs <storage folder> <uplink registry URL>');
  process.exit(2);
}
const config = parseConfigFile(new URL('config.yaml', import.meta.url).pathname);
config.self_path = `${storage}/config.yaml`;
config.storage = storage;
config.auth.htpasswd.file = `${storage}/htpasswd`;
config.uplinks.upstream.url = uplink;
const server = await runServer(config);
server.listen(0, '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
