/**
 * Runtime: user scripts in a QuickJS sandbox with `tools`, `onElicit`, `ask` and `console`.
 * Sees only a HostBindings interface; never imports broker/, client/ or a surface.
 */
export {};
