/** One store per keyv instance, whichever path wraps it. */
import type { Keyv } from 'keyv';

/**
 * Makes `wrap` give one store per keyv instance: wrapping a host's keyv again returns the store that already wraps
 * it, so every caller shares its waiters and its wake channel. Options count on the first wrap only.
 */
export function onePerKeyv<S, O extends unknown[]>(wrap: (keyv: Keyv, ...rest: O) => S): (keyv: Keyv, ...rest: O) => S {
  const wrapped = new WeakMap<Keyv, S>();
  return (keyv, ...rest) => {
    let store = wrapped.get(keyv);
    if (!store) wrapped.set(keyv, (store = wrap(keyv, ...rest)));
    return store;
  };
}
