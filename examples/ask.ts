/**
 * `ask` puts a question to the person at the terminal; the script then uses the answer to answer the server.
 *
 *   node dist/cli.js run examples/ask.ts --config examples/mcpx.json      # on a terminal
 *
 * Declining or cancelling the question is a real answer too: the script passes it on to the server, and checks
 * that the server received exactly that.
 */
interface Received {
  action: 'accept' | 'decline' | 'cancel';
  content?: { repo?: string };
}

const answer = await ask({
  message: 'Which repository should the issue go in?',
  requestedSchema: {
    type: 'object',
    properties: { repo: { type: 'string', description: 'owner/name', minLength: 3 } },
    required: ['repo'],
  },
});
const repo = answer.action === 'accept' ? answer.content?.repo : undefined;

onElicit(async (question) => {
  if (!question.requestedSchema?.properties.repo) return undefined; // not ours to answer: pass it on
  if (answer.action !== 'accept') return { action: answer.action };
  return { action: 'accept', content: { repo } };
});

const result = await tools.fixture.ask_form({ title: 'Asked with ask()' });
const received = (result.structuredContent as { received: { details: Received } }).received.details;

if (received.action !== answer.action || (answer.action === 'accept' && received.content?.repo !== repo)) {
  throw new Error(`the server received ${JSON.stringify(received)}, not the person's answer ${JSON.stringify(answer)}`);
}
console.log(
  answer.action === 'accept'
    ? `ok: the issue goes in ${repo}`
    : `ok: the person chose ${answer.action}, and the server was told so`,
);

export default { answer: answer.action, received };
