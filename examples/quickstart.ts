/**
 * The quick start: a script whose onElicit answers the question a server asks in the middle of a tool call.
 *
 *   npm run quickstart
 *   (= node dist/cli.js run examples/quickstart.ts --config examples/mcpx.json)
 *
 * The fixture server's `ask_form` asks which repository to use, then echoes what it received, so the script
 * checks its own result and fails (exit 1) if the answer did not arrive as given.
 */
interface Received {
  action: 'accept' | 'decline' | 'cancel';
  content?: { repo?: string; private?: boolean; priority?: string };
}

onElicit(async (question) => {
  console.log(`${question.server} asks: ${question.message}`);
  if (question.mode === 'form' && question.requestedSchema?.properties.repo) {
    // `private` is left out: the schema's default (false) fills it in.
    return { action: 'accept', content: { repo: 'me/thing', priority: 'high' } };
  }
  return { action: 'decline' };
});

const result = await tools.fixture.ask_form({ title: 'Hello from mcpx' });
const echo = result.structuredContent as { era: string; received: { details: Received } };
const details = echo.received.details;

if (
  details.action !== 'accept' ||
  details.content?.repo !== 'me/thing' ||
  details.content.priority !== 'high' ||
  details.content.private !== false
) {
  throw new Error(`the server did not receive the answer as given: ${JSON.stringify(details)}`);
}
console.log(`ok: the server received ${JSON.stringify(details.content)} (${echo.era} era)`);

export default { received: details };
