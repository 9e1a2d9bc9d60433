import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mcpxRun } from './run-helpers.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const env = () => ({
  ...process.env,
  MCPX_STATE_DIR: mkdtempSync(join(tmpdir(), 'mcpx-examples-')),
  MCPX_ELICIT: undefined,
  MCPX_CONFIG: undefined,
});
const config = ['--config', 'examples/mcpx.json'];

describe('examples', () => {
  it('quickstart.ts answers the form question in onElicit and checks what the server received', async () => {
    const result = await mcpxRun(['examples/quickstart.ts', ...config, '--check'], { cwd: root, env: env() });
    expect(result.stderr).toContain('ok: the server received {"repo":"me/thing","priority":"high","private":false}');
    expect(result.code).toBe(0);
    expect(result.json()).toEqual({
      received: { action: 'accept', content: { repo: 'me/thing', priority: 'high', private: false } },
    });
  });

  it("ask.ts passes the person's answer on to the server, accept or decline", async () => {
    const accepted = await mcpxRun(['examples/ask.ts', ...config, '--elicit=prompt'], {
      cwd: root,
      env: env(),
      deps: { prompt: async () => ({ action: 'accept', content: { repo: 'me/asked' } }) },
    });
    expect(accepted.stderr).toContain('ok: the issue goes in me/asked');
    expect(accepted.code).toBe(0);
    const declined = await mcpxRun(['examples/ask.ts', ...config, '--elicit=prompt'], {
      cwd: root,
      env: env(),
      deps: { prompt: async () => ({ action: 'decline' }) },
    });
    expect(declined.stderr).toContain('ok: the person chose decline, and the server was told so');
    expect(declined.json()).toEqual({ answer: 'decline', received: { action: 'decline' } });
  });

  it('input-required.ts stops at the unanswered call with exit 75 and the mcpx call message', async () => {
    const result = await mcpxRun(['examples/input-required.ts', ...config, '--elicit=return'], { cwd: root, env: env() });
    expect(result.code).toBe(75);
    expect(result.stdout).toMatch(/^mcpx: legacy\.ask_form is waiting for input and nothing here can answer it\./);
    expect(result.stderr).not.toContain('not reached');
  });
});
