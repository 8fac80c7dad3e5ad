package bank.fernleaf.statements.pdf;

import com.lowagie.text.Paragraph;

final class StatementFooter {
    private StatementFooter() {}

    static Paragraph of(String iban, String bic) {
        return new Paragraph("IBAN " + groupsOfFour(iban) + "  BIC " + bic);
    }

    static String groupsOfFour(String iban) {
        return iban.replaceAll("\\s", "").replaceAll("(.{4})(?!$)", "$1 ");
    }
}
