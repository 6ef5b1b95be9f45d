//! The built-in elementwise kernels, as PTX generated here (small and hand-written:
//! one grid-stride loop per op and type). The driver JIT-compiles it for whatever GPU
//! is present, so one module serves every architecture from sm_50 on.
//!
//! Every kernel takes `(u64 ptr, u64 n, scalar)`. The scalar is `.b64` for 64-bit
//! types and `.b32` otherwise: `f16`/`bf16` scalars arrive widened to `f32`, 8-bit
//! integers zero-extended (the low bits of a wrapping add or multiply do not depend on
//! the high bits). `f16`/`bf16` are computed in `f32` and rounded once to nearest
//! even, as the sim does.

use std::fmt::Write as _;

use crate::DType;
use crate::base::types::Elementwise;

/// The kernel's symbol for an op and type.
pub(crate) fn kernel_name(op: Elementwise, dtype: DType) -> String {
    let op = match op {
        Elementwise::AddScalar => "add",
        Elementwise::Scale => "scale",
    };
    format!("nccl_rs_{op}_{}", dtype.name())
}

const HEADER: &str = ".version 6.0\n.target sm_50\n.address_size 64\n\n";

/// The opening of a kernel: parameters, registers, the element index loop head.
/// Leaves the element's address in `%rd8`, the scalar in `%r1` or `%rd3`.
fn open(out: &mut String, name: &str, wide_scalar: bool, elem_size: usize) {
    let scalar = if wide_scalar { ".b64" } else { ".b32" };
    let _ = write!(
        out,
        ".visible .entry {name}(\n\
         \t.param .u64 p_ptr,\n\
         \t.param .u64 p_n,\n\
         \t.param {scalar} p_s\n\
         )\n{{\n\
         \t.reg .pred %p<3>;\n\
         \t.reg .b16 %h<2>;\n\
         \t.reg .b32 %r<10>;\n\
         \t.reg .b64 %rd<12>;\n\
         \t.reg .f32 %f<4>;\n\
         \t.reg .f64 %fd<4>;\n\
         \tld.param.u64 %rd1, [p_ptr];\n\
         \tld.param.u64 %rd2, [p_n];\n"
    );
    if wide_scalar {
        out.push_str("\tld.param.b64 %rd3, [p_s];\n");
    } else {
        out.push_str("\tld.param.b32 %r1, [p_s];\n");
    }
    let _ = write!(
        out,
        "\tcvta.to.global.u64 %rd1, %rd1;\n\
         \tmov.u32 %r2, %ctaid.x;\n\
         \tmov.u32 %r3, %ntid.x;\n\
         \tmov.u32 %r4, %tid.x;\n\
         \tmul.wide.u32 %rd4, %r2, %r3;\n\
         \tcvt.u64.u32 %rd5, %r4;\n\
         \tadd.u64 %rd4, %rd4, %rd5;\n\
         \tmov.u32 %r5, %nctaid.x;\n\
         \tmul.wide.u32 %rd6, %r5, %r3;\n\
         LOOP:\n\
         \tsetp.ge.u64 %p1, %rd4, %rd2;\n\
         \t@%p1 bra DONE;\n\
         \tmul.lo.u64 %rd7, %rd4, {elem_size};\n\
         \tadd.u64 %rd8, %rd1, %rd7;\n"
    );
}

fn close(out: &mut String) {
    out.push_str(
        "\tadd.u64 %rd4, %rd4, %rd6;\n\
         \tbra LOOP;\n\
         DONE:\n\
         \tret;\n\
         }\n\n",
    );
}

/// The loop body of one op on one type: load `[%rd8]`, combine with the scalar,
/// store back.
fn body(op: Elementwise, dtype: DType) -> String {
    let (int_op, float_op) = match op {
        Elementwise::AddScalar => ("add", "add.rn"),
        Elementwise::Scale => ("mul.lo", "mul.rn"),
    };
    match dtype {
        DType::I8 | DType::U8 => format!(
            "\tld.global.u8 %r6, [%rd8];\n\t{int_op}.u32 %r6, %r6, %r1;\n\tst.global.u8 [%rd8], %r6;\n"
        ),
        DType::I32 | DType::U32 => format!(
            "\tld.global.u32 %r6, [%rd8];\n\t{int_op}.u32 %r6, %r6, %r1;\n\tst.global.u32 [%rd8], %r6;\n"
        ),
        DType::I64 | DType::U64 => format!(
            "\tld.global.u64 %rd9, [%rd8];\n\t{int_op}.u64 %rd9, %rd9, %rd3;\n\tst.global.u64 [%rd8], %rd9;\n"
        ),
        DType::F32 => format!(
            "\tmov.b32 %f1, %r1;\n\tld.global.f32 %f2, [%rd8];\n\t{float_op}.f32 %f2, %f2, %f1;\n\
             \tst.global.f32 [%rd8], %f2;\n"
        ),
        DType::F64 => format!(
            "\tmov.b64 %fd1, %rd3;\n\tld.global.f64 %fd2, [%rd8];\n\t{float_op}.f64 %fd2, %fd2, %fd1;\n\
             \tst.global.f64 [%rd8], %fd2;\n"
        ),
        DType::F16 => format!(
            "\tmov.b32 %f1, %r1;\n\tld.global.b16 %h1, [%rd8];\n\tcvt.f32.f16 %f2, %h1;\n\
             \t{float_op}.f32 %f2, %f2, %f1;\n\tcvt.rn.f16.f32 %h1, %f2;\n\tst.global.b16 [%rd8], %h1;\n"
        ),
        // bf16 is the top half of an f32: widen by shifting; narrow with an integer
        // round-to-nearest-even, and keep NaNs quiet NaNs (as the half crate does).
        DType::BF16 => format!(
            "\tmov.b32 %f1, %r1;\n\tld.global.u16 %r6, [%rd8];\n\tshl.b32 %r6, %r6, 16;\n\
             \tmov.b32 %f2, %r6;\n\t{float_op}.f32 %f2, %f2, %f1;\n\tmov.b32 %r6, %f2;\n\
             \tsetp.nan.f32 %p2, %f2, %f2;\n\
             \tshr.u32 %r7, %r6, 16;\n\tand.b32 %r7, %r7, 1;\n\tadd.u32 %r7, %r7, 32767;\n\
             \tadd.u32 %r8, %r6, %r7;\n\tshr.u32 %r8, %r8, 16;\n\
             \tshr.u32 %r9, %r6, 16;\n\tor.b32 %r9, %r9, 64;\n\
             \tselp.b32 %r8, %r9, %r8, %p2;\n\tst.global.u16 [%rd8], %r8;\n"
        ),
        // No kernel: `module` builds DType::ALL, which has no fp8; the cuda driver
        // refuses elementwise ops on fp8 (`Kernels::get`).
        DType::F8E4M3 | DType::F8E5M2 => String::new(),
    }
}

/// The symbol of the non-finite scan of a float type.
pub(crate) fn non_finite_name(dtype: DType) -> String {
    format!("nccl_rs_nonfinite_{}", dtype.name())
}

/// The loop body of the non-finite scan: load the element's bits, and where every bit
/// of the type's mask is set (NaN or infinity), lower the `u64` at the scalar address
/// (`%rd3`) to the element's index (`%rd4`).
fn non_finite_body(dtype: DType, mask: u64) -> String {
    let (load, reg, width) = match dtype.size() {
        1 => ("ld.global.u8 %r6", "%r6", "b32"),
        2 => ("ld.global.u16 %r6", "%r6", "b32"),
        4 => ("ld.global.u32 %r6", "%r6", "b32"),
        _ => ("ld.global.u64 %rd9", "%rd9", "b64"),
    };
    let cmp = if width == "b64" { "u64" } else { "u32" };
    format!(
        "\t{load}, [%rd8];\n\tand.{width} {reg}, {reg}, {mask};\n\
         \tsetp.eq.{cmp} %p2, {reg}, {mask};\n\tcvta.to.global.u64 %rd10, %rd3;\n\
         \t@%p2 red.global.min.u64 [%rd10], %rd4;\n"
    )
}

/// The whole module: `nccl_rs_fill64`, every (op, type) kernel, and the non-finite
/// scan of every float type.
pub(crate) fn module() -> String {
    let mut out = String::from(HEADER);
    open(&mut out, "nccl_rs_fill64", true, 8);
    out.push_str("\tst.global.u64 [%rd8], %rd3;\n");
    close(&mut out);
    for dtype in DType::ALL {
        for op in [Elementwise::AddScalar, Elementwise::Scale] {
            open(
                &mut out,
                &kernel_name(op, dtype),
                dtype.size() == 8,
                dtype.size(),
            );
            out.push_str(&body(op, dtype));
            close(&mut out);
        }
    }
    for dtype in FLOATS {
        if let Some(mask) = dtype.non_finite_mask() {
            open(&mut out, &non_finite_name(dtype), true, dtype.size());
            out.push_str(&non_finite_body(dtype, mask));
            close(&mut out);
        }
    }
    out
}

/// The float types, fp8 included (the scan has a kernel for each).
pub(crate) const FLOATS: [DType; 6] = [
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
    DType::F8E4M3,
    DType::F8E5M2,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_has_every_kernel_once_and_balanced_braces() {
        let m = module();
        assert!(m.contains(".visible .entry nccl_rs_fill64("));
        for dtype in DType::ALL {
            for op in [Elementwise::AddScalar, Elementwise::Scale] {
                let entry = format!(".visible .entry {}(", kernel_name(op, dtype));
                assert_eq!(m.matches(&entry).count(), 1, "{entry}");
            }
        }
        for dtype in FLOATS {
            let entry = format!(".visible .entry {}(", non_finite_name(dtype));
            assert_eq!(m.matches(&entry).count(), 1, "{entry}");
        }
        assert_eq!(m.matches('{').count(), m.matches('}').count());
        assert_eq!(m.matches(".entry").count(), 27);
        // The masks are the exponent bits (all of them, and the mantissa's too for
        // E4M3, whose only non-finite value is NaN).
        assert!(m.contains("and.b32 %r6, %r6, 2139095040;"), "f32");
        assert!(
            m.contains("and.b64 %rd9, %rd9, 9218868437227405312;"),
            "f64"
        );
    }
}
