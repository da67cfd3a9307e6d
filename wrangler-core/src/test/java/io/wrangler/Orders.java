package io.wrangler;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/** Test data: orders as Java records. */
final class Orders {
    private Orders() {
    }

    record Order(String orderId, LocalDate dt, String country, long amountCents, BigDecimal price) {
    }

    /** {@code perCell} orders for each day and country, ids prefixed with {@code tag} so runs can be told apart. */
    static List<Order> orders(String tag, List<LocalDate> days, List<String> countries, int perCell) {
        List<Order> out = new ArrayList<>();
        int n = 0;
        for (LocalDate d : days) {
            for (String c : countries) {
                for (int i = 0; i < perCell; i++) {
                    out.add(new Order(tag + "-" + d + "-" + c + "-" + i, d, c, 100L * (n + 1), new BigDecimal(n + ".25")));
                    n++;
                }
            }
        }
        return out;
    }
}
