-- Each instance keeps resolved sessions for a moment (server/identity/sessionCache.ts).
-- A change to what auth_session reads is announced on channel auth_changed, so every
-- instance drops what it holds: the payload is the session's token hash when one
-- session changed, empty when anything else did (the instances then drop everything).
-- Only columns auth_session reads notify: the per-request touch (last_seen_at,
-- expires_at) and a login's counters (failed_attempts, last_login_at) stay silent.
-- A new column read by auth_session needs its trigger here extended.

-- auth_session also gives how long the session has left, so a cached entry never outlives it.
DROP FUNCTION auth_session(text, interval);

CREATE FUNCTION auth_session(p_token_hash text, p_touch_after interval)
RETURNS TABLE (
  user_id integer,
  hospital_id integer,
  remember_me boolean,
  password_expired boolean,
  expired boolean,
  touch boolean,
  name text,
  mobile text,
  status smallint,
  password_weak boolean,
  user_scope jsonb,
  role_id integer,
  role_name text,
  permissions jsonb,
  data_scope text,
  data_conditions jsonb,
  region_org_ids jsonb,
  hospital_name text,
  expires_in_ms double precision
)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
  RETURN QUERY
  SELECT s.user_id, s.hospital_id, s.remember_me, s.password_expired,
         (s.revoked_at IS NOT NULL OR s.expires_at <= now()),
         (s.last_seen_at < now() - p_touch_after),
         u.name, u.mobile, u.status, u.password_weak, u.data_scope,
         r.id, r.name, r.permissions, r.data_scope, r.data_conditions, r.region_org_ids,
         o.name,
         (extract(epoch FROM s.expires_at - now()) * 1000)::double precision
    FROM session s
    JOIN app_user u ON u.id = s.user_id
    LEFT JOIN user_membership m ON m.user_id = s.user_id AND m.hospital_id = s.hospital_id
    LEFT JOIN role r ON r.id = m.role_id
    LEFT JOIN org o ON o.id = s.hospital_id
   WHERE s.token_hash = p_token_hash;
END
$$;

CREATE FUNCTION auth_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changed', '');
  RETURN NULL;
END
$$;

-- Row level so the payload names the session: a logout or a hospital switch drops one
-- entry, not every caller's. Revocations touch a user's few sessions at most.
CREATE FUNCTION auth_session_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changed', NEW.token_hash);
  RETURN NULL;
END
$$;

CREATE TRIGGER session_auth_changed AFTER UPDATE OF revoked_at, hospital_id, password_expired ON session
  FOR EACH ROW
  WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at
        OR OLD.hospital_id IS DISTINCT FROM NEW.hospital_id
        OR OLD.password_expired IS DISTINCT FROM NEW.password_expired)
  EXECUTE FUNCTION auth_session_changed();
-- A clean-up may delete many sessions at once: one notification for the statement.
CREATE TRIGGER session_deleted_auth_changed AFTER DELETE OR TRUNCATE ON session
  FOR EACH STATEMENT EXECUTE FUNCTION auth_changed();

CREATE TRIGGER app_user_auth_changed AFTER UPDATE OF name, mobile, status, password_weak, data_scope OR DELETE OR TRUNCATE ON app_user
  FOR EACH STATEMENT EXECUTE FUNCTION auth_changed();
CREATE TRIGGER user_membership_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON user_membership
  FOR EACH STATEMENT EXECUTE FUNCTION auth_changed();
CREATE TRIGGER role_auth_changed AFTER UPDATE OF name, permissions, data_scope, data_conditions, region_org_ids OR DELETE OR TRUNCATE ON role
  FOR EACH STATEMENT EXECUTE FUNCTION auth_changed();
CREATE TRIGGER org_auth_changed AFTER UPDATE OF name OR DELETE OR TRUNCATE ON org
  FOR EACH STATEMENT EXECUTE FUNCTION auth_changed();
