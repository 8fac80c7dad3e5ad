package com.tillpoint.portal.settlements;

import java.io.IOException;
import java.io.Writer;
import java.time.LocalDate;

import org.springframework.web.bind.annotation.*;

import jakarta.servlet.http.HttpServletResponse;

@RestController
@RequestMapping("/api/settlements")
public class SettlementExportController {

    private final SettlementRepository repo;

    public SettlementExportController(SettlementRepository repo) {
        this.repo = repo;
    }

    @GetMapping(value = "/export.csv", produces = "text/csv")
    public void exportCsv(@RequestParam LocalDate from, @RequestParam LocalDate to, HttpServletResponse resp) throws IOException {
        resp.setHeader("Content-Disposition", "attachment; filename=settlements-" + from + "-" + to + ".csv");
        try (Writer w = resp.getWriter()) {
            w.write("date,terminal,gross,fees,net,currency\n");
            for (Settlement s : repo.findBetween(from, to)) {
                w.write(String.join(",", s.date().toString(), s.terminalId(), s.gross().toPlainString(),
                        s.fees().toPlainString(), s.net().toPlainString(), s.currency()) + "\n");
            }
        }
    }
}
