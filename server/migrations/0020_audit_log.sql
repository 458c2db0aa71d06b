-- The audit trail (issue #16; China MLPS 2.0 level 3, IHE ATNA): every read of patient
-- data and every security-relevant change or refusal, with who, when, what, outcome and
-- where from. Written in batches by server/audit/trail.ts.
--
-- Partitioned by month on `at`: the application creates each month's partition ahead
-- (audit_log_YYYYMM) and drops a whole month only once it is older than the retention
-- (AUDIT_RETENTION_MONTHS, never under 6). The default partition catches a row whose
-- month has no partition yet, so nothing is ever refused; it is never dropped.
-- No foreign keys: a record outlives the user, hospital or exam it names.

CREATE TABLE audit_log (
  id bigserial,
  -- The first and last time of the record: identical events of one batch (the frames of
  -- one study fetched by one viewer) are one row with their count.
  at timestamptz NOT NULL,
  last_at timestamptz NOT NULL,
  count integer NOT NULL DEFAULT 1,
  user_id integer,
  user_name text,
  mobile text,
  hospital_id integer,
  hospital_name text,
  action text NOT NULL,
  object_type text,
  object_id text,
  patient_id text,
  patient_name text,
  outcome text NOT NULL CHECK (outcome IN ('success', 'refused', 'error')),
  code text,
  http_status smallint NOT NULL,
  ip text,
  method text NOT NULL,
  route text NOT NULL,
  request_id text,
  PRIMARY KEY (at, id)
) PARTITION BY RANGE (at);

CREATE TABLE audit_log_default PARTITION OF audit_log DEFAULT;

-- The auditor's list: a time range, within hospitals, newest first.
CREATE INDEX audit_log_hospital_at_idx ON audit_log (hospital_id, at DESC, id DESC);
CREATE INDEX audit_log_user_idx ON audit_log (user_id, at DESC);
CREATE INDEX audit_log_patient_idx ON audit_log (patient_id, at DESC) WHERE patient_id IS NOT NULL;

-- The auditor's Excel export runs as a background export job of its own kind.
ALTER TABLE export_job DROP CONSTRAINT export_job_kind_check;
ALTER TABLE export_job ADD CONSTRAINT export_job_kind_check CHECK (kind IN ('exam', 'audit'));
