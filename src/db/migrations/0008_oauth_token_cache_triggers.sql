-- Processes cache authenticated OAuth access tokens (domain/oauth/bearer.ts); a change that can withdraw
-- or narrow one tells every process to forget them: a token or grant revoked or expiring early, a grant
-- losing an organization, a client changed or deleted, a membership added, changed or removed.
-- Issuing and rotating tokens (inserts, rotated_at) change no cached token and notify nothing.
CREATE FUNCTION "parley_oauth_access_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('parley_oauth_cache', TG_TABLE_NAME);
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "oauth_tokens_changed" AFTER UPDATE OF "revoked_at", "expires_at", "scopes", "token_hash", "grant_id" OR DELETE ON "oauth_tokens"
  FOR EACH STATEMENT EXECUTE FUNCTION "parley_oauth_access_changed"();--> statement-breakpoint
CREATE TRIGGER "oauth_grants_changed" AFTER UPDATE OF "revoked_at", "scopes", "user_id", "client_id" OR DELETE ON "oauth_grants"
  FOR EACH STATEMENT EXECUTE FUNCTION "parley_oauth_access_changed"();--> statement-breakpoint
CREATE TRIGGER "oauth_grant_organizations_changed" AFTER INSERT OR UPDATE OR DELETE ON "oauth_grant_organizations"
  FOR EACH STATEMENT EXECUTE FUNCTION "parley_oauth_access_changed"();--> statement-breakpoint
CREATE TRIGGER "oauth_clients_changed" AFTER UPDATE OR DELETE ON "oauth_clients"
  FOR EACH STATEMENT EXECUTE FUNCTION "parley_oauth_access_changed"();--> statement-breakpoint
CREATE TRIGGER "memberships_changed_oauth" AFTER INSERT OR UPDATE OR DELETE ON "memberships"
  FOR EACH STATEMENT EXECUTE FUNCTION "parley_oauth_access_changed"();
