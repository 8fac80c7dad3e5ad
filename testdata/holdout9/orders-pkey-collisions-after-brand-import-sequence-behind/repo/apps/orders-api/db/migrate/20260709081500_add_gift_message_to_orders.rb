class AddGiftMessageToOrders < ActiveRecord::Migration[7.2]
  def change
    add_column :orders, :gift_message, :string, limit: 280
  end
end
