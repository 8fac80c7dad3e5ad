ALTER TABLE quote ADD COLUMN delivery_note varchar(500);
