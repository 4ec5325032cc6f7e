//! Exact misère outcomes of the positions `n^a · h^b · fixed` from misère canonical forms
//! (Conway, ONAG ch. 12; `nimseq::misere::forms`): the form of `n^a` is built once per `a`
//! and each context added to it, so whole grids cost little more than their largest position.
//! Also says where the forms of the powers `n^a` repeat, if they do: equal forms are alike in
//! every context, so `n^a ≡ n^(a+d)` in every quotient.
//!
//! `cargo run --release --example misere_forms_grid -- CODE N H AMAX BMAX [fixed heaps…]`
//! (rows from `a = AMIN` only when the environment variable `AMIN` is set).

use nimseq::misere::MisereHeaps;
use nimseq::rules::Rule;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let code = &args[1];
    let n: usize = args[2].parse().expect("N");
    let h: usize = args[3].parse().expect("H");
    let amax: usize = args[4].parse().expect("AMAX");
    let bmax: usize = args[5].parse().expect("BMAX");
    let fixed: Vec<usize> = args[6..].iter().map(|a| a.parse().expect("heap")).collect();
    let rule = Rule::parse(code).expect("a valid code");
    let mut heaps = MisereHeaps::new(&rule);
    let t = std::time::Instant::now();
    let hn = heaps.heap_form(n).expect("forms");
    let hh = heaps.heap_form(h).expect("forms");
    let base = heaps.position_form(&fixed).expect("forms");
    let f = heaps.forms_mut();
    let mut powers = vec![0u32];
    for a in 1..=amax {
        let last = powers[a - 1];
        powers.push(f.add(last, hn).expect("forms"));
    }
    for (a, pa) in powers.iter().enumerate() {
        if let Some(b) = powers[..a].iter().position(|pb| pb == pa) {
            println!("form of {n}^{a} = form of {n}^{b}");
        }
    }
    let mut ctx = vec![base];
    for b in 1..=bmax {
        let last = ctx[b - 1];
        ctx.push(f.add(last, hh).expect("forms"));
    }
    println!("{code}: {n}^a · {h}^b · {fixed:?}, P marked (misère canonical forms)");
    let amin: usize = std::env::var("AMIN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for (a, &pa) in powers.iter().enumerate().skip(amin) {
        let mut line = String::new();
        for &c in &ctx {
            let s = f.add(pa, c).expect("forms");
            line.push(if f.g_minus(s) == 0 { 'P' } else { '.' });
        }
        println!(
            "a={a:3}: {line}   ({} forms, {:.1} s)",
            f.len(),
            t.elapsed().as_secs_f64()
        );
    }
}
