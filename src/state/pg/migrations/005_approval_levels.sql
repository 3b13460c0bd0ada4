-- Approval levels beyond single/second_person (human, dashboard) need no schema change: `approval`
-- is text. A proposal now also says what undo will be possible, shown in the approval question.
ALTER TABLE proposals ADD COLUMN IF NOT EXISTS undo text NOT NULL DEFAULT '';
