class CreateInvoices < ActiveRecord::Migration[7.1]
  def change
    create_table :invoices do |t|
      t.references :account, null: false, foreign_key: true
      t.string :stripe_invoice_id, null: false
      t.string :number
      t.string :currency, null: false
      t.bigint :amount_due
      t.bigint :amount_paid
      t.string :status
      t.string :hosted_url
      t.datetime :period_start
      t.datetime :period_end
      t.timestamps
    end
    add_index :invoices, :stripe_invoice_id, unique: true
  end
end
