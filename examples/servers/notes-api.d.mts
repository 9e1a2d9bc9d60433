export declare const NOTES_OPENAPI: Record<string, unknown>;
export interface NotesApi {
  url: string;
  /** Requests received, by "METHOD /path" (`/notes/{id}` for one note). */
  requests: Record<string, number>;
  notes: Map<number, { id: number; title: string; body?: string }>;
  close(): Promise<void>;
}
export declare function startNotesApi(options?: { port?: number; host?: string }): Promise<NotesApi>;
