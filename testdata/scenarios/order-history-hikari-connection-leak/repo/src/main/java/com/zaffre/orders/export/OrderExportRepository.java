package com.zaffre.orders.export;

import java.io.IOException;
import java.io.Writer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import javax.sql.DataSource;
import org.springframework.stereotype.Repository;

@Repository
public class OrderExportRepository {

  private static final String SQL =
      "SELECT o.id, o.placed_at, o.status, o.total_cents, o.currency FROM orders o "
          + "WHERE o.customer_id = ? AND o.placed_at >= ? ORDER BY o.placed_at";

  private final DataSource dataSource;

  public OrderExportRepository(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Streams a customer's orders as CSV without loading them into memory. */
  public int streamOrders(long customerId, LocalDate since, Writer out) throws SQLException, IOException {
    Connection conn = dataSource.getConnection();
    conn.setAutoCommit(false);
    PreparedStatement ps = conn.prepareStatement(SQL);
    ps.setFetchSize(500);
    ps.setLong(1, customerId);
    ps.setObject(2, since);
    int rows = 0;
    try (ResultSet rs = ps.executeQuery()) {
      out.write("order_id,placed_at,status,total,currency\n");
      while (rs.next()) {
        out.write(CsvRow.of(rs));
        rows++;
      }
    }
    return rows;
  }
}
