// The expressions of a GitHub Actions workflow (`${{ }}` and `if:`), as the test harness
// (workflow-runner.ts) evaluates them: string and number literals, `true`/`false`, property
// paths into the contexts it gives, `==`, `!=`, `!`, `&&`, `||`, parentheses, the status
// functions and format(). Anything else fails the test by name, so that a changed workflow is
// never run half-understood.

/** The contexts an expression reads, and whether an earlier step (or a needed job) failed. */
export interface Scope {
  contexts: { github: Record<string, unknown>; runner: Record<string, string>; vars: Record<string, string>; secrets: Record<string, string>; inputs: Record<string, unknown>; needs: Record<string, unknown>; steps: Record<string, unknown> };
  failed: boolean;
}

/** An `if:` (with or without `${{ }}`): GitHub adds `success() &&` when it names no status function. */
export function condition(expr: string | undefined, scope: Scope): boolean {
  const text = (expr ?? '').trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1').trim();
  if (text === '') return !scope.failed;
  const value = evaluate(text, scope);
  return /\b(?:always|cancelled|success|failure)\(\)/.test(text) ? Boolean(value) : !scope.failed && Boolean(value);
}

export function interpolateAll(values: Record<string, string> | undefined, scope: Scope): Record<string, string> {
  return Object.fromEntries(Object.entries(values ?? {}).map(([k, v]) => [k, interpolate(String(v), scope)]));
}

/** A value as `${{ }}` writes it into a string: an object or a missing value as ''. */
const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'boolean' || typeof v === 'number' ? String(v) : '');

/** `${{ expr }}` in a string replaced by its value. */
export function interpolate(template: string, scope: Scope): string {
  return template.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expr: string) => text(evaluate(expr.trim(), scope)));
}

const TOKEN = /\s*(?:'((?:[^']|'')*)'|(&&|\|\||==|!=|!|\(|\)|,)|([A-Za-z_][\w-]*(?:\.[\w-]+)*)(\s*\()?|(\d+))/y;

type Token = { kind: 'string'; value: string } | { kind: 'op'; value: string } | { kind: 'path'; value: string } | { kind: 'call'; value: string } | { kind: 'number'; value: string };

/** The tokens of an expression. */
function tokens(expr: string): Token[] {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  while (expr.slice(TOKEN.lastIndex).trim() !== '') {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(expr);
    if (!m) throw new Error(`cannot read the expression ${JSON.stringify(expr)} at ${at}`);
    if (m[1] !== undefined) out.push({ kind: 'string', value: m[1].replace(/''/g, "'") });
    else if (m[2] !== undefined) out.push({ kind: 'op', value: m[2] });
    else if (m[5] !== undefined) out.push({ kind: 'number', value: m[5] });
    else if (m[4] !== undefined) out.push({ kind: 'call', value: m[3]! });
    else out.push({ kind: 'path', value: m[3]! });
  }
  return out;
}

/**
 * The value of a property path: a context the harness does not give, or a field of `github`
 * or `runner` it does not set, fails the test by name; a missing variable, secret, step or
 * output is '' (as on GitHub).
 */
function lookup(path: string, scope: Scope): unknown {
  if (path === 'true' || path === 'false') return path === 'true';
  const [context, ...keys] = path.split('.');
  if (!Object.hasOwn(scope.contexts, context!)) throw new Error(`the test harness does not know the context of ${path}`);
  let v: unknown = scope.contexts[context as keyof Scope['contexts']];
  if ((context === 'github' || context === 'runner') && !(keys[0]! in (v as object))) throw new Error(`the test harness does not set ${path}`);
  for (const k of keys) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v ?? '';
}

/**
 * The expressions the workflow uses, by recursive descent: string literals, `true`/`false`,
 * property paths, `==`, `!=`, `!`, `&&`, `||` (which return an operand, as GitHub's do),
 * parentheses, and always(), cancelled(), success(), failure(), format().
 */
function evaluate(expr: string, scope: Scope): unknown {
  const ts = tokens(expr);
  let i = 0;
  const peek = (v: string) => ts[i]?.kind === 'op' && ts[i]!.value === v;
  const call = (name: string, args: unknown[]): unknown => {
    if (name === 'always') return true;
    if (name === 'cancelled') return false;
    if (name === 'success') return !scope.failed;
    if (name === 'failure') return scope.failed;
    if (name === 'toJSON') return JSON.stringify(args[0], null, 2);
    if (name === 'format') return String(args[0]).replace(/\{(\d+)\}/g, (_, n: string) => text(args[Number(n) + 1]));
    throw new Error(`the test harness knows no function ${name}()`);
  };
  /** The arguments of a call, its `(` read: values separated by `,`, up to `)`. */
  const args = (): unknown[] => {
    const values: unknown[] = [];
    while (!peek(')')) {
      values.push(or());
      if (peek(',')) i++;
      else if (!peek(')')) throw new Error(`a call without ) in ${JSON.stringify(expr)}`);
    }
    i++;
    return values;
  };
  const primary = (): unknown => {
    const t = ts[i++];
    if (!t) throw new Error(`the expression ${JSON.stringify(expr)} ends early`);
    if (t.kind === 'string') return t.value;
    if (t.kind === 'path') return lookup(t.value, scope);
    if (t.kind === 'number') return Number(t.value);
    if (t.kind === 'call') return call(t.value, args());
    if (t.value === '!') return !primary();
    if (t.value === '(') {
      const v = or();
      if (!peek(')')) throw new Error(`a ( without ) in ${JSON.stringify(expr)}`);
      i++;
      return v;
    }
    throw new Error(`unexpected ${t.value} in ${JSON.stringify(expr)}`);
  };
  const equality = (): unknown => {
    let v = primary();
    while (peek('==') || peek('!=')) {
      const op = ts[i++]!.value;
      const w = primary();
      v = op === '==' ? v === w : v !== w;
    }
    return v;
  };
  const and = (): unknown => {
    let v = equality();
    while (peek('&&')) {
      i++;
      const w = equality();
      v = v ? w : v;
    }
    return v;
  };
  const or = (): unknown => {
    let v = and();
    while (peek('||')) {
      i++;
      const w = and();
      v = v ? v : w;
    }
    return v;
  };
  const value = or();
  if (i !== ts.length) throw new Error(`cannot read the end of ${JSON.stringify(expr)}`);
  return value;
}
