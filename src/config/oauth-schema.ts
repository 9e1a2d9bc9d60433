/**
 * A server's `oauth` block: how mcpx gets a token for it. The default is the interactive authorization-code flow
 * (discovery and registration need no settings); `grant` picks a machine flow instead. A secret (a client secret,
 * a private key, an assertion, an ID token) is never written here: it is asked for at first use and kept in the
 * secret store (`{"ask": "...", "secret": true}`), or read from a file the platform maintains (`{"file": "..."}`).
 */
import * as z from 'zod';

/** A value mcpx asks for at first use (`{"ask": "GitHub token", "secret": true}`) and then keeps in the secret store. */
export const askedValueSchema = z.strictObject({ ask: z.string().min(1), secret: z.boolean().optional() });
export type AskedValue = z.infer<typeof askedValueSchema>;

/** A file read at each use (a workload token the platform rotates, a PEM key); its content never reaches a log. */
export const fileValueSchema = z.strictObject({ file: z.string().min(1) });
export type FileValue = z.infer<typeof fileValueSchema>;

/** A secret of the `oauth` block: asked for and kept in the secret store, or read from a file. */
export const secretValueSchema = z.union([askedValueSchema, fileValueSchema]);
export type SecretValue = z.infer<typeof secretValueSchema>;

/** The OAuth grants mcpx can use: the person signs in, or the machine holds a credential. */
export const OAUTH_GRANTS = ['authorization_code', 'client_credentials', 'jwt-bearer', 'enterprise'] as const;
export type OAuthGrant = (typeof OAUTH_GRANTS)[number];

/** Signing algorithms for `privateKey` (private_key_jwt, RFC 7523 §2.2). */
export const SIGNING_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'] as const;

const idpSchema = z.strictObject({
  /** The identity provider's token endpoint (RFC 8693 token exchange), or its issuer to discover it from. */
  tokenEndpoint: z.url({ protocol: /^https?$/ }).optional(),
  issuer: z.url({ protocol: /^https?$/ }).optional(),
  clientId: z.string().min(1),
  clientSecret: secretValueSchema.optional(),
  /** The person's ID token from the enterprise identity provider. */
  idToken: secretValueSchema,
});

const secretWhere = '{"ask": "<what to ask for>", "secret": true} (asked once, kept in the secret store) or {"file": "<path>"}';

export const oauthSchema = z
  .strictObject({
    grant: z.enum(OAUTH_GRANTS).optional(),
    clientId: z.string().min(1).optional(),
    /** A plain string only for the authorization-code flow, as before; machine grants take it from the secret store. */
    clientSecret: z.union([z.string().min(1), secretValueSchema]).optional(),
    clientMetadataUrl: z.url({ protocol: /^https$/ }).optional(),
    scope: z.string().min(1).optional(),
    /** client_credentials with private_key_jwt: the PEM (PKCS #8) key and its algorithm. */
    privateKey: secretValueSchema.optional(),
    algorithm: z.enum(SIGNING_ALGORITHMS).optional(),
    /** jwt-bearer (workload identity federation): the workload's JWT. */
    assertion: secretValueSchema.optional(),
    /** enterprise (SEP-990): the identity provider that exchanges the person's ID token for an authorization grant. */
    idp: idpSchema.optional(),
    /** The authorization server's issuer these credentials belong to: they are sent to no other. */
    issuer: z.url({ protocol: /^https?$/ }).optional(),
    /** DPoP-bound tokens (RFC 9449): default when the authorization server offers them; false never, true always. */
    dpop: z.boolean().optional(),
  })
  .superRefine((oauth, ctx) => {
    const grant = oauth.grant ?? 'authorization_code';
    const issue = (field: string, message: string): void => {
      ctx.addIssue({ code: 'custom', path: [field], message });
    };
    const needs = (field: keyof typeof oauth, what: string): void => {
      if (oauth[field] === undefined) issue(field, `grant "${grant}" needs "${field}": ${what}`);
    };
    const only = (field: keyof typeof oauth, grants: OAuthGrant[]): void => {
      if (oauth[field] !== undefined && !grants.includes(grant))
        issue(field, `"${field}" is for grant ${grants.map((g) => `"${g}"`).join(' or ')}, not "${grant}"`);
    };
    only('privateKey', ['client_credentials']);
    only('algorithm', ['client_credentials']);
    only('assertion', ['jwt-bearer']);
    only('idp', ['enterprise']);
    only('clientMetadataUrl', ['authorization_code']);
    if (grant !== 'authorization_code' && typeof oauth.clientSecret === 'string')
      issue('clientSecret', `a client secret is never written in the config file; give ${secretWhere}`);
    if (grant === 'client_credentials') {
      needs('clientId', 'the client id the authorization server issued');
      if ((oauth.clientSecret === undefined) === (oauth.privateKey === undefined))
        issue(
          'clientSecret',
          `grant "client_credentials" needs exactly one of "clientSecret" or "privateKey", each as ${secretWhere}`,
        );
      if (oauth.privateKey !== undefined)
        needs('algorithm', `the key's signing algorithm, one of ${SIGNING_ALGORITHMS.join(', ')}`);
    }
    if (grant === 'jwt-bearer') needs('assertion', `the workload's JWT, as ${secretWhere}`);
    if (grant === 'enterprise') {
      needs('clientId', "the client id the MCP server's authorization server issued");
      needs('clientSecret', `its client secret, as ${secretWhere}`);
      needs('idp', 'the identity provider: {"issuer" or "tokenEndpoint", "clientId", "idToken"}');
      if (oauth.idp && !oauth.idp.issuer && !oauth.idp.tokenEndpoint)
        issue('idp', 'grant "enterprise" needs "idp.issuer" or "idp.tokenEndpoint": where the ID token is exchanged');
    }
  });
export type OAuthConfig = z.infer<typeof oauthSchema>;
