-- Per-hospital settings by module, beside user_setting (0002) which is per user.
-- First use: a form's page configuration (which group each field sits in, in what
-- order), set by whoever holds reportPage:edit for everyone of that hospital.
-- Deleting the hospital deletes its settings.
CREATE TABLE org_setting (
  org_id integer NOT NULL REFERENCES org (id) ON DELETE CASCADE,
  module text NOT NULL,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, module)
);
