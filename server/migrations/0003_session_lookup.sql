-- The per-request session lookup as a PL/pgSQL function: its plan is cached per
-- connection, where the same five-table join sent as text is planned on every
-- request (planning cost several times the execution). Same columns as before.
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
  hospital_name text
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
         o.name
    FROM session s
    JOIN app_user u ON u.id = s.user_id
    LEFT JOIN user_membership m ON m.user_id = s.user_id AND m.hospital_id = s.hospital_id
    LEFT JOIN role r ON r.id = m.role_id
    LEFT JOIN org o ON o.id = s.hospital_id
   WHERE s.token_hash = p_token_hash;
END
$$;
