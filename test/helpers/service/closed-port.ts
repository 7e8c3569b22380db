/**
 * A loopback port that nothing listens on, every time: 1 (tcpmux), a privileged port outside
 * the ephemeral range every test server binds from (port 0), so no emulator, registry or
 * fixture of a test running beside this one can be on it. A port bound and closed a moment
 * ago is not that: another test's server can take it in between (a refused connection then
 * answered 401).
 */
export const CLOSED_PORT = 1;
