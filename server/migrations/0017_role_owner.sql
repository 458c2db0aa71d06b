-- Roles have an owner: the region (NULL) or one hospital. A region-owned role (the
-- templates every hospital assigns) is changed only with region scope; a hospital's
-- own role by whoever holds that hospital in scope, and it is assigned in that
-- hospital only (server/identity/grants.ts). Dictionaries, exam parts, QC rules and
-- app_meta settings have no hospital at all: they are region-owned by declaration.
-- Removing a hospital leaves its roles to the region, the safer owner.
ALTER TABLE role ADD COLUMN owner_hospital_id integer REFERENCES org (id) ON DELETE SET NULL;

-- Existing roles stay region-owned unless clearly one hospital's: every user holding
-- the role holds it in that one hospital, and it reaches no further (neither all data
-- nor a regional or remote-centre authorization).
UPDATE role r SET owner_hospital_id = used.hospital_id
  FROM (SELECT role_id, min(hospital_id) AS hospital_id FROM user_membership
         GROUP BY role_id HAVING count(DISTINCT hospital_id) = 1) used
 WHERE used.role_id = r.id
   AND r.data_scope <> 'all'
   AND r.region_org_ids = '[]'::jsonb
   AND r.remote_org_ids = '[]'::jsonb;

CREATE INDEX role_owner_hospital_idx ON role (owner_hospital_id);
