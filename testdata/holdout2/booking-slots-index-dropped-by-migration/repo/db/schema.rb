# This file is auto-generated from the current state of the database. Instead
# of editing this file, please use the migrations feature of Active Record to
# incrementally modify your database, and then regenerate this schema definition.

ActiveRecord::Schema[7.2].define(version: 2026_12_08_141500) do
  enable_extension "plpgsql"
  enable_extension "pg_stat_statements"

  create_table "clinics", force: :cascade do |t|
    t.string "name", null: false
    t.string "time_zone", default: "Europe/London", null: false
    t.jsonb "opening_hours", default: {}, null: false
    t.datetime "created_at", null: false
    t.datetime "updated_at", null: false
  end

  create_table "practitioners", force: :cascade do |t|
    t.bigint "clinic_id", null: false
    t.string "display_name", null: false
    t.string "speciality", null: false
    t.index ["clinic_id"], name: "index_practitioners_on_clinic_id"
  end

  create_table "slots", force: :cascade do |t|
    t.bigint "clinic_id", null: false
    t.bigint "practitioner_id", null: false
    t.datetime "starts_at", null: false
    t.integer "duration_minutes", default: 15, null: false
    t.boolean "booked", default: false, null: false
    t.boolean "blocked", default: false, null: false
    t.datetime "created_at", null: false
    t.datetime "updated_at", null: false
    t.index ["practitioner_id", "clinic_id", "starts_at"], name: "index_slots_on_practitioner_clinic_starts_at"
  end

  create_table "appointments", force: :cascade do |t|
    t.bigint "slot_id", null: false
    t.bigint "patient_id", null: false
    t.string "reason"
    t.string "status", default: "confirmed", null: false
    t.datetime "created_at", null: false
    t.datetime "updated_at", null: false
    t.index ["patient_id"], name: "index_appointments_on_patient_id"
    t.index ["slot_id"], name: "index_appointments_on_slot_id", unique: true
  end
end
