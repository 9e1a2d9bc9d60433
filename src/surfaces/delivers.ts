/**
 * What every connection a surface opens (list, call, run, gen, the daemon) declares: form always, since a question
 * nobody answers now waits in the broker for anyone; url too, since whoever answers a url question (the terminal
 * form, the inbox, `mcpx elicit`, a REST client) opens the page on their side. One rule, so a server lists the same
 * tools to every surface and generated files do not depend on whether a daemon ran.
 */
export const SURFACE_DELIVERS = { answerLater: true, urlOpenedByAnswerer: true } as const;
