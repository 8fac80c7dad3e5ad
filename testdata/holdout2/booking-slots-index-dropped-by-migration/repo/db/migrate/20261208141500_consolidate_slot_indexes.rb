# Slots has grown three overlapping indexes; keep one composite index that
# serves both the practitioner calendar and the clinic availability search.
class ConsolidateSlotIndexes < ActiveRecord::Migration[7.2]
  disable_ddl_transaction!

  def up
    add_index :slots, %i[practitioner_id clinic_id starts_at],
              name: "index_slots_on_practitioner_clinic_starts_at",
              algorithm: :concurrently, if_not_exists: true

    # Both are prefixes of the composite index above.
    remove_index :slots, name: "index_slots_on_practitioner_id_and_starts_at", algorithm: :concurrently
    remove_index :slots, name: "index_slots_on_clinic_id_and_starts_at", algorithm: :concurrently
  end

  def down
    add_index :slots, %i[clinic_id starts_at], name: "index_slots_on_clinic_id_and_starts_at", algorithm: :concurrently
    add_index :slots, %i[practitioner_id starts_at], name: "index_slots_on_practitioner_id_and_starts_at",
                                                     algorithm: :concurrently
    remove_index :slots, name: "index_slots_on_practitioner_clinic_starts_at", algorithm: :concurrently
  end
end
