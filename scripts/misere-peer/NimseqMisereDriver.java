// nimseq's driver for MisereSolver (the peer of `nimseq quotient`), written for nimseq.
//
// scripts/bench-misere.sh copies MisereSolver's classes out of a CGSuite checkout the user gives
// into a temporary folder, replaces their one use of CGSuite's heap rules by the small octal
// move generator below (`NimseqOctalRules`), compiles everything with javac and runs this
// driver. Nothing of CGSuite is kept in nimseq; this file is nimseq's own.
//
// Usage: java org.cgsuite.core.misere.solver.NimseqMisereDriver CODE MAX_HEAP
// Prints one line a heap, `heap H order Q p P ms T`, then `certified H period PER preperiod PRE`
// when Φ is periodic by CGSuite's test for octal codes (2·preperiod + 2·period + t + 2 ≤ heaps
// computed, t the last digit's index, as CGSuite's TBCode.periodicityChecker sets it), or
// `limit H` when MAX_HEAP is reached first; last `outcomes TOP BITS` (see printOutcomes).
package org.cgsuite.core.misere.solver;

import java.util.ArrayList;
import java.util.List;

/** The moves of an octal code `0.d1d2…dk` (digits 0–7): heaps left by each move. */
class NimseqOctalRules {
    private final String code;
    private final int[] digits; // digits[j]: the digit for taking j tokens (digits[0] = 0)

    NimseqOctalRules(String code) {
        if (!code.startsWith("0.")) {
            throw new IllegalArgumentException("only codes 0.d1d2… are supported: " + code);
        }
        this.code = code;
        String d = code.substring(2);
        digits = new int[d.length() + 1];
        for (int j = 1; j <= d.length(); j++) {
            int v = d.charAt(j - 1) - '0';
            if (v < 0 || v > 7) {
                throw new IllegalArgumentException("not an octal digit in " + code);
            }
            digits[j] = v;
        }
    }

    /** The index of the last non-zero digit. */
    int lastDigit() {
        int t = digits.length - 1;
        while (t > 0 && digits[t] == 0) {
            t--;
        }
        return t;
    }

    /** Every option of a heap of `n` tokens, as the list of heaps it leaves (no zero heaps). */
    List<int[]> heapOptions(int n) {
        List<int[]> out = new ArrayList<>();
        for (int j = 1; j < digits.length && j <= n; j++) {
            int d = digits[j];
            int rest = n - j;
            if ((d & 1) != 0 && rest == 0) {
                out.add(new int[0]);
            }
            if ((d & 2) != 0 && rest >= 1) {
                out.add(new int[] {rest});
            }
            if ((d & 4) != 0) {
                for (int a = 1; 2 * a <= rest; a++) {
                    out.add(new int[] {a, rest - a});
                }
            }
        }
        return out;
    }

    List<int[]> allOptions(int n) {
        return heapOptions(n);
    }

    @Override
    public String toString() {
        return code;
    }
}

/** Thrown when the solver thread is interrupted (MisereSolver checks for interrupts). */
class TimeoutException extends RuntimeException {}

/** Runs MisereSolver heap by heap on one octal code. */
public class NimseqMisereDriver {
    public static void main(String[] args) {
        NimseqOctalRules rules = new NimseqOctalRules(args[0]);
        int maxHeap = Integer.parseInt(args[1]);
        int t = rules.lastDigit();
        MisereSolver ms = new MisereSolver(rules);
        long start = System.nanoTime();
        while (true) {
            int[] cert = certificate(ms.p.prefn, t);
            if (cert != null) {
                System.out.printf("certified %d period %d preperiod %d%n",
                        ms.p.prefn.size() - 1, cert[0], cert[1]);
                printOutcomes(ms);
                return;
            }
            if (ms.p.prefn.size() > maxHeap) {
                System.out.printf("limit %d%n", ms.p.prefn.size() - 1);
                printOutcomes(ms);
                return;
            }
            ms.next();
            System.out.printf("heap %d order %d p %d ms %d%n", ms.p.prefn.size() - 1,
                    ms.p.quotient.monoid.size(), ms.p.quotient.pPortionSize(),
                    (System.nanoTime() - start) / 1_000_000);
            System.out.flush();
        }
    }

    /**
     * `outcomes TOP BITS`: whether each heap 1 … TOP, then each pair of heaps a ≤ b ≤ TOP, is a
     * P-position by the quotient (TOP = the last heap, at most 60).
     */
    static void printOutcomes(MisereSolver ms) {
        List<Integer> v = ms.p.prefn;
        int top = Math.min(v.size() - 1, 60);
        StringBuilder bits = new StringBuilder();
        for (int a = 1; a <= top; a++) {
            bits.append(ms.p.quotient.isP(v.get(a)) ? '1' : '0');
        }
        for (int a = 1; a <= top; a++) {
            for (int b = a; b <= top; b++) {
                int x = ms.p.quotient.monoid.product(v.get(a), v.get(b));
                bits.append(ms.p.quotient.isP(x) ? '1' : '0');
            }
        }
        System.out.printf("outcomes %d %s%n", top, bits);
    }

    /**
     * `{period, preperiod}` of the sequence `v` when some period `per` and the least preperiod
     * for it satisfy 2·pre + 2·per + t + 2 ≤ v.size(); else null.
     */
    static int[] certificate(List<Integer> v, int t) {
        int len = v.size();
        for (int per = 1; 2 * per + t + 2 <= len; per++) {
            int pre = len - per;
            while (pre > 0 && v.get(pre - 1).equals(v.get(pre - 1 + per))) {
                pre--;
            }
            if (2 * pre + 2 * per + t + 2 <= len) {
                return new int[] {per, pre};
            }
        }
        return null;
    }
}
