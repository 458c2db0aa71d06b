-- Files and form drafts (issue #18 items 5 and 6).
--
-- A file kept by the file service (server/files, /api/file/v1): what it is for
-- (purpose), whose it is (owner kind and id: a user's signature, an exam's
-- attachment), and, once complete, its sniffed type, size, SHA-256 and storage key.
-- A large file arrives in chunks (init, chunk n, complete); the row exists from init
-- on with complete = false, and its chunks are rows of stored_file_chunk, so any
-- instance can take the next chunk or the completion, and a client that lost its
-- connection asks which chunks arrived. Nothing of an upload lives in memory.
CREATE TABLE stored_file (
  id uuid PRIMARY KEY,
  purpose text NOT NULL,
  owner_kind text NOT NULL,
  owner_id integer NOT NULL,
  -- The owning record's hospital when it has one (an exam's); a user spans hospitals.
  hospital_id integer REFERENCES org (id),
  name text NOT NULL,
  -- Sniffed from the content's first bytes at completion; never the client's word.
  type text,
  -- Declared at init, the actual size once complete (they must agree).
  size bigint NOT NULL,
  sha256 text,
  storage_key text,
  chunk_size integer NOT NULL,
  chunk_count integer NOT NULL,
  complete boolean NOT NULL DEFAULT false,
  created_by integer REFERENCES app_user (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  CONSTRAINT stored_file_complete_check CHECK (NOT complete OR (type IS NOT NULL AND sha256 IS NOT NULL AND storage_key IS NOT NULL))
);
CREATE INDEX stored_file_owner_idx ON stored_file (owner_kind, owner_id, purpose);
-- Unfinished uploads by age: what a clean-up of abandoned uploads walks.
CREATE INDEX stored_file_pending_idx ON stored_file (created_at) WHERE NOT complete;

-- The chunks of an unfinished upload that have arrived; a chunk sent again replaces
-- its row (the client resumes without knowing whether the last one landed).
CREATE TABLE stored_file_chunk (
  file_id uuid NOT NULL REFERENCES stored_file (id) ON DELETE CASCADE,
  n integer NOT NULL,
  size integer NOT NULL,
  storage_key text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (file_id, n)
);

-- A wizard's draft (a view with form.steps): the values typed so far and the step
-- reached, one per user and form, resumed when the user opens the form again and
-- dropped when it is submitted.
CREATE TABLE form_draft (
  user_id integer NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
  form text NOT NULL,
  step integer NOT NULL DEFAULT 0,
  data jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, form)
);
