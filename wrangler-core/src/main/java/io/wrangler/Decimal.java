package io.wrangler;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Decimal fixes the column type of a {@link java.math.BigDecimal} record component, instead of inferring it from the
 * data (decimal(38, largest scale found)), so that the type stays the same from one run to the next:
 *
 * <pre>{@code
 * record Order(String id, @Decimal(precision = 12, scale = 2) BigDecimal amount) { }
 * }</pre>
 *
 * A value that would need rounding to fit is refused before any I/O.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.RECORD_COMPONENT, ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER})
public @interface Decimal {
    /** Total digits, 1 to 38. */
    int precision() default 38;

    /** Digits after the point, 0 to precision. */
    int scale();
}
