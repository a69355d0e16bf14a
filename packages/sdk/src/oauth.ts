/**
 * An OAuth access token that renews itself: refreshed through the token endpoint (grant_type
 * refresh_token) when the service answers 401 or when it is known to have expired, one refresh at a
 * time. Every refresh rotates the refresh token (the old one stops working, and presenting it again
 * revokes the whole grant), so two refreshes must never race with the same one, and a refresh that
 * may have reached the service is never repeated.
 */
import { AuthenticationError, errorFor, ParleyError } from './errors.ts';

export type OAuthTokens = { accessToken: string; refreshToken: string; expiresAt: Date | undefined };

export type OAuthOptions = {
  accessToken?: string;
  refreshToken?: string;
  clientId?: string;
  clientSecret?: string;
  /** When the access token expires, if known: it is refreshed shortly before instead of after a 401. */
  expiresAt?: Date;
  /** Called after every refresh with the new tokens (store them: the refresh token sent is no longer valid). */
  onTokens?: (tokens: OAuthTokens) => void | Promise<void>;
};

/** Sends the token request (through the client's transport, without the token itself). */
export type TokenRequester = (request: Request) => Promise<Response>;

/** Refresh this long before a known expiry, so a request does not leave with a token about to lapse. */
const EXPIRY_MARGIN_MS = 30_000;

export class TokenAuth {
  #accessToken: string | undefined;
  #refreshToken: string | undefined;
  #expiresAt: Date | undefined;
  #refreshing: Promise<void> | undefined;
  readonly #options: OAuthOptions;
  readonly #tokenUrl: string;
  readonly #send: TokenRequester;

  constructor(options: OAuthOptions, tokenUrl: string, send: TokenRequester) {
    this.#options = options;
    this.#accessToken = options.accessToken;
    this.#refreshToken = options.refreshToken;
    this.#expiresAt = options.expiresAt;
    this.#tokenUrl = tokenUrl;
    this.#send = send;
  }

  get canRefresh(): boolean {
    return Boolean(this.#refreshToken && this.#options.clientId);
  }

  /** The token to send now: refreshed first when there is none yet or it is known to have expired. */
  async current(): Promise<string | undefined> {
    const expired = this.#expiresAt !== undefined && this.#expiresAt.getTime() - EXPIRY_MARGIN_MS <= Date.now();
    if (this.canRefresh && (!this.#accessToken || expired)) await this.refresh(this.#accessToken);
    return this.#accessToken;
  }

  /**
   * Refreshes after `rejected` was refused. When another call has refreshed meanwhile, the token is
   * already new and nothing is sent; when a refresh is under way, this one waits for it.
   */
  async refresh(rejected: string | undefined): Promise<void> {
    if (this.#accessToken !== rejected && !this.#refreshing) return;
    this.#refreshing ??= this.#exchange().finally(() => (this.#refreshing = undefined));
    await this.#refreshing;
  }

  async #exchange(): Promise<void> {
    const { clientId, clientSecret, onTokens } = this.#options;
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: this.#refreshToken!, client_id: clientId! });
    if (clientSecret) form.set('client_secret', clientSecret);
    const response = await this.#send(
      new Request(this.#tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
      }),
    );
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    if (!response.ok) {
      const refused = errorFor(response.status, body, response.headers);
      // A refused refresh token (invalid_grant: expired, revoked, reused) means signing in again.
      if (response.status === 400 || response.status === 401)
        throw new AuthenticationError({
          status: 401,
          problem: refused.problem,
          headers: response.headers,
          message: `the access token was refused and could not be refreshed: ${refused.message}`,
        });
      throw refused;
    }
    const tokens = body as { access_token?: string; refresh_token?: string; expires_in?: number };
    if (!tokens.access_token) throw new ParleyError({ status: response.status, message: 'the token endpoint answered no access_token' });
    this.#accessToken = tokens.access_token;
    // Without refresh_token in the answer the client is not registered for rotation: the old one is kept.
    this.#refreshToken = tokens.refresh_token ?? this.#refreshToken;
    this.#expiresAt = typeof tokens.expires_in === 'number' ? new Date(Date.now() + tokens.expires_in * 1000) : undefined;
    await onTokens?.({ accessToken: this.#accessToken, refreshToken: this.#refreshToken!, expiresAt: this.#expiresAt });
  }
}
