/**
 * The broker's door for the rest of src/: the public `mcpx/broker` entry (public.ts) and what the host's other
 * layers (tasks, the pipeline, surfaces) use of the broker's internals. Import the broker only through here.
 */
export * from './public.js';
export { questionOf, elicitationOf, openInputOf, toAnswer } from './question.js';
export { openStoreUrl, openStoreFromEnv } from './store-url.js';
export { checkTaskScope, eventSession } from './scope.js';
export { parseCursor } from './paging.js';
export { isOffered, offerGone, readOffer, takeOffer, watchOffer, watchOfferGone } from './offers.js';
export { abandoned, eventFor, notFound, refuseAnswered } from './records.js';
export { encodeRow, rawKey } from './stores/rows.js';
export { tablesOf } from './stores/postgres/schema.js';
export { postgresAdapterOf, sqliteAdapterOf, sqliteTableOf } from './stores/keyv-adapters.js';
