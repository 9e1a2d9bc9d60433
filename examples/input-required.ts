/**
 * A question nothing here can answer: no onElicit, and no person (--elicit=return, the default off a terminal).
 * The run stops at that call with the same message as `mcpx call` and exits 75, even inside try/catch.
 *
 *   node dist/cli.js run examples/input-required.ts --config examples/mcpx.json --elicit=return; echo $?   # 75
 */
try {
  await tools.legacy.ask_form({ title: 'Nobody is there to answer' });
  console.log('not reached: the server got no answer');
} catch (error) {
  console.log('not reached either: catching ToolError does not swallow an unanswered question', error);
}
throw new Error('not reached: the run stopped at the call above');
