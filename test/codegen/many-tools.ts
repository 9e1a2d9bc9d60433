/**
 * N synthetic MCP tools cycling five hard shapes (nested objects, enum/const, nullable type arrays, combinators,
 * $defs with recursion, tuples, additionalProperties, formats, defaults, deprecation): the bench's 1,000 tools.
 */
import type { ToolDefinition } from '../../src/codegen/index.js';

const shapes: Array<(i: number) => Omit<ToolDefinition, 'name'>> = [
  (i) => ({
    description: `Create item ${i} in a repository.`,
    inputSchema: {
      type: 'object',
      properties: {
        title: { type: 'string', description: 'Title of the item', maxLength: 200 },
        body: { type: ['string', 'null'], description: 'Markdown body' },
        labels: { type: 'array', items: { type: 'string' }, uniqueItems: true },
        priority: { enum: ['low', 'medium', 'high'], default: 'medium' },
        assignee: {
          type: 'object',
          properties: { login: { type: 'string' }, id: { type: 'integer' } },
          required: ['login'],
          additionalProperties: false,
        },
      },
      required: ['title'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { number: { type: 'integer' }, url: { type: 'string', format: 'uri' } },
      required: ['number', 'url'],
    },
  }),
  (i) => ({
    description: `Search ${i}`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        filter: {
          oneOf: [
            { type: 'object', properties: { kind: { const: 'user' }, name: { type: 'string' } }, required: ['kind'] },
            { type: 'object', properties: { kind: { const: 'org' }, id: { type: 'integer' } }, required: ['kind', 'id'] },
          ],
        },
        range: {
          type: 'array',
          prefixItems: [
            { type: 'string', format: 'date' },
            { type: 'string', format: 'date' },
          ],
          items: false,
        },
        since: { type: 'string', format: 'date-time', deprecated: true },
      },
      required: ['query'],
    },
  }),
  (i) => ({
    description: `Tree ${i}`,
    inputSchema: {
      type: 'object',
      properties: { root: { $ref: '#/$defs/Node' }, depth: { type: 'integer', minimum: 0, default: 3 } },
      $defs: {
        Node: {
          type: 'object',
          properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
          required: ['name'],
        },
      },
    },
    outputSchema: {
      type: 'object',
      properties: { nodes: { type: 'array', items: { $ref: '#/definitions/Leaf' } } },
      definitions: {
        Leaf: {
          type: 'object',
          properties: { id: { type: 'string' }, value: { anyOf: [{ type: 'number' }, { type: 'string' }, { type: 'null' }] } },
        },
      },
    },
  }),
  (i) => ({
    description: `Settings ${i}`,
    inputSchema: {
      type: 'object',
      properties: {
        values: { type: 'object', additionalProperties: { type: 'number' } },
        merged: {
          allOf: [
            { type: 'object', properties: { a: { type: 'string' } } },
            { type: 'object', properties: { b: { type: 'boolean' } } },
          ],
        },
        mode: { type: 'string', enum: ['fast', 'safe'] },
      },
    },
    outputSchema: {
      type: 'object',
      properties: { ok: { type: 'boolean' }, warnings: { type: 'array', items: { type: 'string' } } },
      required: ['ok'],
    },
  }),
  (i) => ({
    description: `Upload ${i}`,
    annotations: { destructiveHint: true },
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Where to write' },
        content: { type: 'string', contentEncoding: 'base64' },
        overwrite: { type: 'boolean', default: false },
        meta: {
          type: 'object',
          properties: { tags: { type: 'array', items: { type: 'string' } }, owner: { type: ['string', 'null'] } },
        },
      },
      required: ['path', 'content'],
    },
  }),
];

export function makeTools(count: number): ToolDefinition[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `tool_${i}`,
    ...(shapes[i % shapes.length] as (i: number) => Omit<ToolDefinition, 'name'>)(i),
  }));
}
