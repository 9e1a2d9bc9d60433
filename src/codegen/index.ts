/**
 * Codegen: typed tool clients and script declarations from servers' JSON Schemas (untrusted input).
 * Pure: takes tool lists, returns files; never connects, never touches the terminal.
 */
export {};
