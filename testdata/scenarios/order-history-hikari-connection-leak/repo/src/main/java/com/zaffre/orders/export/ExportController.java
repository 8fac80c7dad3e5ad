package com.zaffre.orders.export;

import jakarta.servlet.http.HttpServletResponse;
import java.time.LocalDate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class ExportController {

  private final OrderExportRepository exports;

  public ExportController(OrderExportRepository exports) {
    this.exports = exports;
  }

  @GetMapping("/api/customers/{customerId}/orders/export.csv")
  public void export(@PathVariable long customerId, @RequestParam LocalDate since, HttpServletResponse resp)
      throws Exception {
    resp.setContentType("text/csv");
    exports.streamOrders(customerId, since, resp.getWriter());
  }
}
