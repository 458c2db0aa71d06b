-- Reporting (issue #8): the report of an exam with its workflow state and version,
-- the doctors assigned to it, its lock, the request keys that make a repeated action
-- apply once, and the report templates. The state machine that moves a report is
-- data (config/workflows/report.json) run by server/report/engine.ts, the only writer
-- of report.report_state; it copies the state (and whether the report went to the
-- superior hospital) into exam.report_state / exam.sent_to_superior in the same
-- transaction, since the exam list and the image matching rules read them there.
--
-- Operation record: no table of its own. The spec's report operation types mix exam
-- operations (appoint, suspend, modify booking, match and unbind study, update exam)
-- with report ones, so an exam has ONE record: exam_log (0007), where the exam side
-- already writes. A report action adds a row with action = its log type
-- (codes/reportOperationType.json) and detail {reportAction, reportFrom, reportTo,
-- reason, hospitalName, ...}; GET /api/report/v1/report/logs/:id reads it as
-- entities/reportOperationLog.json.

-- A report is its exam's: the same id. The row is made by the exam's first report
-- action (an exam nobody reported on has none, and exam.report_state -1).
CREATE TABLE report (
  id integer PRIMARY KEY REFERENCES exam (id) ON DELETE CASCADE,
  report_state smallint NOT NULL DEFAULT -1 CHECK (report_state IN (-1, 1, 2, 3, 4, 5, 6, 7, 8)),
  -- Optimistic concurrency: every applied action adds one; a call made on an older version is refused.
  version integer NOT NULL DEFAULT 0,
  see text,
  diagnosis text,
  remark text,
  positive boolean,
  crisis boolean NOT NULL DEFAULT false,
  crisis_recorder text,
  crisis_record_time timestamptz,
  crisis_description text,
  -- Signatures are the actual operators (spec section 6): who submitted, reviewed, rechecked.
  writer_id integer REFERENCES app_user (id) ON DELETE SET NULL,
  writer_name text,
  first_trial_time timestamptz,
  first_trial_hospital_id integer REFERENCES org (id) ON DELETE SET NULL,
  first_trial_hospital_name text,
  reviewer_id integer REFERENCES app_user (id) ON DELETE SET NULL,
  reviewer_name text,
  retrial_time timestamptz,
  retrial_back_reason text,
  recheck_doctor_id integer REFERENCES app_user (id) ON DELETE SET NULL,
  recheck_doctor_name text,
  recheck_time timestamptz,
  sent_to_superior boolean NOT NULL DEFAULT false,
  superior_hospital_id integer REFERENCES org (id),
  superior_send_time timestamptz,
  print_state smallint NOT NULL DEFAULT 0 CHECK (print_state IN (0, 1)),
  print_number integer NOT NULL DEFAULT 0,
  -- Returned to the front collector (approved reports only); a flag, not a state.
  return_state boolean NOT NULL DEFAULT false,
  last_operator_id integer REFERENCES app_user (id) ON DELETE SET NULL,
  last_operator_name text,
  last_operate_time timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- "My reports": what I wrote or reviewed (assignments have their own index below).
CREATE INDEX report_writer_idx ON report (writer_id);
CREATE INDEX report_reviewer_idx ON report (reviewer_id);
-- The remote centre's notice counts and lists: reports sent to a superior hospital, by state.
CREATE INDEX report_superior_idx ON report (superior_hospital_id, report_state) WHERE sent_to_superior;

-- The report notice counts (polled by every open client) count a hospital's examined,
-- visible, not-sent-away exams by report state; this index holds only those rows, so
-- the count is an index-only range scan per hospital and state.
CREATE INDEX exam_report_todo_idx ON exam (hospital_id, report_state) WHERE exam_state = 2 AND NOT hidden AND NOT sent_to_superior;
-- Report lists: one hospital's exams in some report states, newest first.
CREATE INDEX exam_hospital_report_state_idx ON exam (hospital_id, report_state, created_at DESC, id DESC);

-- Doctors a report is assigned to (report assignment): every one of them sees, writes
-- and reviews it under "my reports"; the signature is still whoever acts.
CREATE TABLE report_assignee (
  report_id integer NOT NULL REFERENCES report (id) ON DELETE CASCADE,
  user_id integer NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
  user_name text NOT NULL,
  assigned_by integer REFERENCES app_user (id) ON DELETE SET NULL,
  assigned_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (report_id, user_id)
);
CREATE INDEX report_assignee_user_idx ON report_assignee (user_id);

-- Who has the report open to write or review. A lock whose expires_at has passed is
-- free (its holder's page stopped renewing); the row stays until someone else locks,
-- so the holder can tell "expired" from "taken".
CREATE TABLE report_lock (
  report_id integer PRIMARY KEY REFERENCES report (id) ON DELETE CASCADE,
  holder_id integer NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
  holder_name text NOT NULL,
  taken_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);

-- Idempotency: a client may send a key (Idempotency-Key header) with an action; the
-- same key from the same user is applied once and answered again afterwards.
CREATE TABLE report_request (
  user_id integer NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
  request_key text NOT NULL CHECK (length(request_key) <= 64),
  report_id integer NOT NULL REFERENCES report (id) ON DELETE CASCADE,
  action text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, request_key)
);
CREATE INDEX report_request_created_idx ON report_request (created_at);

-- Report templates (spec section 3 "Templates"): public ones belong to a hospital,
-- private ones to their author (any hospital). Two class levels are the templates'
-- own class names; a class exists while a template is filed under it.
CREATE TABLE report_template (
  id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  scope text NOT NULL CHECK (scope IN ('public', 'private')),
  hospital_id integer REFERENCES org (id) ON DELETE CASCADE,
  owner_id integer REFERENCES app_user (id) ON DELETE CASCADE,
  class_name1 text NOT NULL CHECK (length(class_name1) BETWEEN 1 AND 16),
  class_name2 text NOT NULL CHECK (length(class_name2) BETWEEN 1 AND 16),
  template_name text NOT NULL CHECK (length(template_name) BETWEEN 1 AND 16),
  see text,
  diagnosis text,
  sort integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT report_template_owner_check CHECK (
    (scope = 'public' AND hospital_id IS NOT NULL AND owner_id IS NULL) OR (scope = 'private' AND owner_id IS NOT NULL AND hospital_id IS NULL)
  ),
  -- One name per class of one hospital's public (or one doctor's private) templates.
  CONSTRAINT report_template_name_key UNIQUE NULLS NOT DISTINCT (scope, hospital_id, owner_id, class_name1, class_name2, template_name)
);
CREATE INDEX report_template_owner_idx ON report_template (owner_id) WHERE owner_id IS NOT NULL;
