/** What the route modules share: the app's dependencies and the REST view of a question. */
import type { ElicitRequest } from '../../../broker/index.js';
import type { AppDeps } from '../app.js';
import type { RestElicitation } from '../schemas.js';

export interface RouteContext {
  deps: AppDeps;
  now: () => number;
  /** The REST `Elicitation`: the core's listed view, with the task that holds the call and the command that answers. */
  toElicitation(request: ElicitRequest): RestElicitation;
}
