# frozen_string_literal: true

class CreateTrials < ActiveRecord::Migration[7.2]
  def up
    create_table :trials do |t|
      t.references :subscription, null: false, foreign_key: true, index: { unique: true }
      t.datetime :started_at, null: false
      t.datetime :ends_at, null: false
      t.timestamps
    end
    execute <<~SQL
      INSERT INTO trials (subscription_id, started_at, ends_at, created_at, updated_at)
      SELECT id, created_at, trial_ends_at, now(), now() FROM subscriptions WHERE trial_ends_at IS NOT NULL
    SQL
  end

  def down
    drop_table :trials
  end
end
