/** Who answers, as the backends record it. */
import { userInfo } from 'node:os';

/** The user this process runs as, for the answer's record; undefined where the OS will not say (no passwd entry). */
export function currentUser(): string | undefined {
  try {
    return userInfo().username || undefined;
  } catch {
    return undefined;
  }
}
