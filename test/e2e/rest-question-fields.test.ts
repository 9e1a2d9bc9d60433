/**
 * What the daemon's REST API says about a question beyond its text, on the built CLI with real servers over
 * Streamable HTTP: a url-mode question (the dual-era fixture's `ask_url`) carries its `url`, the `domain` to show
 * and `urlOpenable`; mcpx's own question for a secret header carries `secret` (where the answer goes) and never a
 * value. `GET /openapi.json` documents the three fields on the Elicitation component.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_URL } from '../../examples/servers/dual-era.mjs';
import { startHttpFixture, type HttpFixture } from '../helpers/fixture-servers.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const protectedServer = join(root, 'test', 'fixtures', 'servers', 'protected-http.mjs');
const home = mkdtempSync(join(tmpdir(), 'mcpx-rest-fields-'));
const env = {
  PATH: process.env.PATH ?? '',
  HOME: home,
  MCPX_CONFIG_DIR: join(home, 'config'),
  MCPX_STATE_DIR: join(home, 'state'),
  MCPX_SECRET_STORE: 'file',
};

function mcpx(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [cli, ...args], { cwd: home, env, timeout: 60_000 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** GET over the daemon's unix socket, as any local REST client would. */
function get(socketPath: string, path: string): Promise<any> {
  return new Promise((done, fail) => {
    request({ socketPath, path }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => done(JSON.parse(text)));
    })
      .on('error', fail)
      .end();
  });
}

let web: HttpFixture;
let keyed: ChildProcess;
let socket: string;

beforeAll(async () => {
  web = await startHttpFixture('dual-era');
  keyed = spawn(process.execPath, [protectedServer, '--api-key'], { env: { ...process.env, FIXTURE_API_KEY: 'unused' } });
  const keyedUrl = await new Promise<string>((done) => createInterface({ input: keyed.stdout! }).once('line', done));
  mkdirSync(env.MCPX_CONFIG_DIR);
  writeFileSync(
    join(env.MCPX_CONFIG_DIR, 'mcpx.json'),
    JSON.stringify({
      mcpServers: {
        web: { url: web.url, era: 'modern' },
        keyed: { url: keyedUrl, headers: { 'X-Api-Key': { ask: 'Notes API key', secret: true } } },
      },
    }),
  );
  for (const target of ['web.ask_url', 'keyed.whoami']) {
    const call = await mcpx(['call', target]);
    expect(call.code, call.stderr).toBe(75);
  }
  socket = JSON.parse((await mcpx(['daemon', 'status', '--json'])).stdout).socket;
});

afterAll(async () => {
  await mcpx(['daemon', 'stop']);
  keyed?.kill();
  await web?.close();
});

describe('questions on the REST API', () => {
  it('shows a url question with its domain and whether it may be opened, and a secret question with where it goes', async () => {
    const { elicitations } = await get(socket, '/v1/elicit');
    const byServer = Object.fromEntries(elicitations.map((e: { server: string }) => [e.server, e]));
    expect(byServer.web).toMatchObject({
      mode: 'url',
      url: FIXTURE_URL,
      domain: 'example.com',
      urlOpenable: true,
      tool: 'ask_url',
    });
    expect(byServer.web.secret).toBeUndefined();
    expect(byServer.keyed).toMatchObject({
      mode: 'form',
      secret: { service: 'credential:keyed', account: 'headers.X-Api-Key' },
      audience: 'user',
    });
    expect(byServer.keyed.domain).toBeUndefined();
    expect(byServer.keyed.urlOpenable).toBeUndefined();

    const one = await get(socket, `/v1/elicit/${byServer.web.id}`);
    expect(one.elicitation).toMatchObject({ domain: 'example.com', urlOpenable: true });
  });

  it('documents domain, urlOpenable and secret on the Elicitation component of the OpenAPI document', async () => {
    const document = await get(socket, '/openapi.json');
    const properties = document.components.schemas.Elicitation.properties;
    expect(properties.domain).toMatchObject({ type: 'string' });
    expect(properties.urlOpenable).toMatchObject({ type: 'boolean' });
    expect(properties.secret).toMatchObject({
      type: 'object',
      properties: { service: { type: 'string' }, account: { type: 'string' } },
    });
    const listed = document.paths['/v1/elicit'].get.responses['200'].content['application/json'].schema;
    expect(JSON.stringify(listed)).toContain('#/components/schemas/Elicitation');
  });
});
