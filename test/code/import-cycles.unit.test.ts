/**
 * No run-time import cycles under src/. A cycle makes the order modules are evaluated in depend on
 * which one is loaded first, so a binding read while its module is still evaluating is in its
 * temporal dead zone (a ReferenceError at boot, or in one test file but not another). Type-only
 * imports are erased before run time and do not count: `import type ...`, `export type ... from`, and
 * imports whose every named specifier is `type X` (eslint's no-import-type-side-effects keeps those
 * written as `import type`, since Node's type stripping keeps `import { type X } from` as a bare
 * `import {} from` that still loads the module). Re-exports (`export ... from`) and dynamic imports
 * of a literal path count. Only relative imports are followed: packages cannot import src/.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = path.join(ROOT, 'src');

/** Every .ts and .tsx file under a folder, as paths relative to the repository root. */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path.relative(ROOT, full));
  }
  return out.sort();
}

/**
 * The source with comments blanked and the insides of string, template and regex literals blanked
 * (same length, line breaks kept), so that only code is searched and offsets still point into the
 * original text. A `/` starts a regex literal where an expression may start (after an operator, an
 * opening bracket, a comma, a keyword like `return`), and is division elsewhere.
 */
function codeOnly(source: string): string {
  const out = source.split('');
  const blank = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (out[i] !== '\n') out[i] = ' ';
  };
  // Open template literals and, inside their ${...}, the brace depth at which each was entered.
  const templates: number[] = [];
  let depth = 0;
  let lastSignificant = '';
  let lastWord = '';
  let i = 0;
  const n = source.length;
  /** Skips a quoted string or a template's text part from `start` (on the opening quote or after `}`); returns the index after it. */
  const skipTemplateText = (start: number): { end: number; opensExpression: boolean } => {
    let j = start;
    while (j < n) {
      const c = source[j]!;
      if (c === '\\') j += 2;
      else if (c === '`') return { end: j + 1, opensExpression: false };
      else if (c === '$' && source[j + 1] === '{') return { end: j + 2, opensExpression: true };
      else j++;
    }
    return { end: n, opensExpression: false };
  };
  while (i < n) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      const stop = end === -1 ? n : end;
      blank(i, stop);
      i = stop;
      continue;
    }
    if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end === -1 ? n : end + 2;
      blank(i, stop);
      i = stop;
      continue;
    }
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < n && source[j] !== c && source[j] !== '\n') j += source[j] === '\\' ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
      lastSignificant = c;
      lastWord = '';
      continue;
    }
    if (c === '`' || (c === '}' && templates.length > 0 && templates.at(-1) === depth)) {
      if (c === '}') templates.pop();
      const { end, opensExpression } = skipTemplateText(i + 1);
      blank(i + 1, opensExpression ? end - 2 : end - 1);
      if (opensExpression) templates.push(depth);
      i = end;
      lastSignificant = opensExpression ? '{' : '`';
      lastWord = '';
      continue;
    }
    if (c === '/') {
      const startsExpression =
        lastSignificant === '' ||
        '(,=:[!&|?{};+-*%<>~^'.includes(lastSignificant) ||
        ['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'void', 'yield', 'await', 'delete', 'throw', 'new'].includes(lastWord);
      if (startsExpression) {
        let j = i + 1;
        let inClass = false;
        while (j < n && source[j] !== '\n') {
          const r = source[j]!;
          if (r === '\\') j += 2;
          else {
            if (r === '[') inClass = true;
            else if (r === ']') inClass = false;
            else if (r === '/' && !inClass) break;
            j++;
          }
        }
        blank(i + 1, j);
        i = j + 1;
        while (i < n && /[a-z]/i.test(source[i]!)) i++;
        lastSignificant = '/';
        lastWord = 'regex';
        continue;
      }
    }
    if (c === '{') depth++;
    else if (c === '}') depth--;
    if (/[A-Za-z0-9_$]/.test(c)) {
      let j = i;
      while (j < n && /[A-Za-z0-9_$]/.test(source[j]!)) j++;
      lastWord = source.slice(i, j);
      lastSignificant = 'a';
      i = j;
      continue;
    }
    if (!/\s/.test(c)) {
      lastSignificant = c;
      lastWord = '';
    }
    i++;
  }
  return out.join('');
}

/** Whether a `{ ... }` clause names at least one binding and every one of them is `type X`. */
function allTypes(braces: string): boolean {
  const specifiers = braces
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return specifiers.length > 0 && specifiers.every((s) => /^type\s/.test(s));
}

// Static imports and re-exports begin a statement (a line's start after a `;` or `}`: never the middle
// of a line of JSX text that says "import's"). Their clauses hold names, braces, commas, `*` and `as`:
// no parenthesis, `=` or quote, so `export const x = ...` or a function can never be read as one.
const STATEMENT = String.raw`(?<=(?:^|[\n;}])[ \t]*)`;
const STATIC = new RegExp(String.raw`${STATEMENT}(import|export)(\s+type)?(\s[\w$\s{},*]*?)?\s*from\s*(['"])`, 'g');
const SIDE_EFFECT = new RegExp(String.raw`${STATEMENT}import\s*(['"])`, 'g');
const DYNAMIC = /(?<![\w$.])import\s*\(\s*(['"`])/g;

/** The run-time imports of one module's text, as the specifiers written (relative or not). */
function runtimeImports(source: string): string[] {
  const code = codeOnly(source);
  const found: string[] = [];
  /** The literal whose opening quote is at `quote` (read from the original text; the code has it blanked). */
  const literalAt = (quote: number): string | undefined => {
    const close = code.indexOf(code[quote]!, quote + 1);
    const text = source.slice(quote + 1, close);
    // A template literal with ${...} is no literal path.
    return code[quote] === '`' && text.includes('${') ? undefined : text;
  };
  for (const m of code.matchAll(STATIC)) {
    const [whole, , typeKeyword, clause = ''] = m;
    if (typeKeyword) continue;
    const braces = /\{([^}]*)\}/.exec(clause);
    // `import Default, { type X }` still loads the module for Default.
    const outside = braces ? clause.replace(braces[0], '').replace(/[\s,]/g, '') : clause.trim();
    if (braces && outside === '' && allTypes(braces[1]!)) continue;
    const specifier = literalAt(m.index + whole.length - 1);
    if (specifier !== undefined) found.push(specifier);
  }
  for (const m of code.matchAll(SIDE_EFFECT)) {
    const specifier = literalAt(m.index + m[0].length - 1);
    if (specifier !== undefined) found.push(specifier);
  }
  for (const m of code.matchAll(DYNAMIC)) {
    const specifier = literalAt(m.index + m[0].length - 1);
    if (specifier !== undefined) found.push(specifier);
  }
  return found;
}

/** The file a relative specifier names, relative to the root; undefined for a package or a file outside the set. */
function resolve(from: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const base = path.join(path.dirname(from), specifier.split('?')[0]!);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.jsx$/, '.tsx'),
    `${base}.ts`,
    `${base}.tsx`,
    path.join(base, 'index.ts'),
    path.join(base, 'index.tsx'),
  ];
  return candidates.find((c) => files.has(c));
}

type Graph = Map<string, string[]>;

function importGraph(files: string[]): Graph {
  const set = new Set(files);
  const graph: Graph = new Map();
  for (const file of files) {
    const targets = runtimeImports(readFileSync(path.join(ROOT, file), 'utf8'))
      .map((s) => resolve(file, s, set))
      .filter((t): t is string => t !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components with a cycle in them (Tarjan's algorithm, iterative). */
function cyclicComponents(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; next: number }> = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work.at(-1)!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const to = edges[frame.next++]!;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work.at(-1);
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = component.length === 1 && (graph.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) components.push(component.sort());
      }
    }
  }
  return components;
}

/** The shortest path from `from` to `to` inside a component (breadth first). */
function shortestPath(graph: Graph, members: ReadonlySet<string>, from: string, to: string): string[] {
  const previous = new Map<string, string>([[from, from]]);
  const queue = [from];
  for (let node = queue.shift(); node !== undefined; node = queue.shift()) {
    if (node === to) break;
    for (const next of graph.get(node) ?? []) {
      if (members.has(next) && !previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  const path = [to];
  while (path[0] !== from) path.unshift(previous.get(path[0]!)!);
  return path;
}

/**
 * Every cycle worth naming: for each import edge inside a cyclic component, the shortest cycle through
 * it, written from its first file in sort order and listed once. Breaking every one of them (each
 * edge of a component lies on one) leaves no cycle.
 */
function importCycles(graph: Graph): string[][] {
  const cycles = new Map<string, string[]>();
  for (const component of cyclicComponents(graph)) {
    const members = new Set(component);
    for (const from of component) {
      for (const to of graph.get(from) ?? []) {
        if (!members.has(to)) continue;
        const loop = from === to ? [from] : [from, ...shortestPath(graph, members, to, from).slice(0, -1)];
        const start = loop.indexOf([...loop].sort()[0]!);
        const rotated = [...loop.slice(start), ...loop.slice(0, start)];
        cycles.set(rotated.join(' '), rotated);
      }
    }
  }
  return [...cycles.values()].sort((a, b) => a.join(' ').localeCompare(b.join(' ')));
}

test('the import reader: type-only imports are left out; values, re-exports, side effects and literal dynamic imports are read', () => {
  const source = [
    "import type { A } from './type-only.ts';",
    "import { type B, type C } from './inline-types.ts';",
    "export type { D } from './type-reexport.ts';",
    "export { type E } from './inline-type-reexport.ts';",
    "import { type F, g } from './mixed.ts';",
    "import H, { type I } from './default-and-type.ts';",
    "import * as ns from './namespace.ts';",
    "import {\n  j,\n  k,\n} from './multi-line.ts';",
    "export { l } from './reexport.ts';",
    "export * from './star.ts';",
    "import './side-effect.ts';",
    "// import { m } from './commented.ts';",
    "/* export * from './block-commented.ts'; */",
    'const text = "import { n } from \'./in-a-string.ts\'";',
    // JSX text is no import, even where it reads like one.
    "const note = <p>the import's limit; take it from 'here'</p>;",
    "const pattern = /['\"]/; const q = import('./after-a-regex.ts');",
    'const lazy = () => import(`./template.ts`);',
    // A template with an expression names no one file.
    'const chosen = (x: string) => import(`./${x}.ts`);',
    "export const o = `${'}'}`; import { p } from './after-a-template.ts';",
    "import pkg from 'some-package';",
  ].join('\n');
  assert.deepEqual(runtimeImports(source).sort(), [
    './after-a-regex.ts',
    './after-a-template.ts',
    './default-and-type.ts',
    './mixed.ts',
    './multi-line.ts',
    './namespace.ts',
    './reexport.ts',
    './side-effect.ts',
    './star.ts',
    './template.ts',
    'some-package',
  ]);
});

test('the cycle finder names each cycle by its files, and only cycles', () => {
  const graph: Graph = new Map([
    ['a', ['b']],
    ['b', ['c', 'd']],
    ['c', ['a']],
    ['d', ['b']],
    ['e', ['e']],
    ['f', ['a']],
  ]);
  assert.deepEqual(importCycles(graph), [['a', 'b', 'c'], ['b', 'd'], ['e']]);
  assert.deepEqual(
    importCycles(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    [],
  );
});

test('src/ has no run-time import cycle', () => {
  const files = sourceFiles(SRC);
  const graph = importGraph(files);
  // The reader must see the imports at all (a reader that found none would pass).
  assert.ok((graph.get('src/main.ts') ?? []).includes('src/config.ts'), 'src/main.ts imports src/config.ts');
  assert.ok((graph.get('src/main.ts') ?? []).includes('src/serve.ts'), "src/main.ts's dynamic import of src/serve.ts is read");
  const cycles = importCycles(graph);
  assert.deepEqual(
    cycles.map((c) => [...c, c[0]].join(' -> ')),
    [],
    `${cycles.length} run-time import cycle(s):\n${cycles.map((c) => `  ${[...c, c[0]].join(' -> ')}`).join('\n')}\n`,
  );
});
