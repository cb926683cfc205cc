//! A port of Grisu2 as the engine ships it (`thirdparty/grisu2/grisu2.h`, MIT, after Florian
//! Loitsch's reference implementation): the same boundaries, cached powers, digit generation
//! and rounding, so that it picks the same digits.

use super::text::NumText as Text;

/// `f * 2^e`.
#[derive(Clone, Copy)]
pub(super) struct Fp {
    f: u64,
    e: i32,
}

impl Fp {
    fn sub(self, y: Fp) -> Fp {
        Fp {
            f: self.f - y.f,
            e: self.e,
        }
    }

    /// The upper 64 bits of the product, rounded (ties up).
    fn mul(self, y: Fp) -> Fp {
        let p = u128::from(self.f) * u128::from(y.f);
        let h = (p >> 64) as u64 + ((p >> 63) as u64 & 1);
        Fp {
            f: h,
            e: self.e + y.e + 64,
        }
    }

    /// Shifts the top bit of `f` (not 0) to bit 63.
    fn normalize(self) -> Fp {
        let s = self.f.leading_zeros();
        Fp {
            f: self.f << s,
            e: self.e - s as i32,
        }
    }

    fn normalize_to(self, e: i32) -> Fp {
        Fp {
            f: self.f << (self.e - e),
            e,
        }
    }
}

/// `(m-, v, m+)`, normalized, `m-` and `m+` with the same exponent.
pub(super) struct Bounds {
    minus: Fp,
    w: Fp,
    plus: Fp,
}

fn boundaries(bits: u64, precision: i32, bias: i32) -> Bounds {
    let hidden = 1u64 << (precision - 1);
    let e_bits = bits >> (precision - 1);
    let f_bits = bits & (hidden - 1);
    let min_exp = 1 - bias;
    let v = if e_bits == 0 {
        Fp {
            f: f_bits,
            e: min_exp,
        }
    } else {
        Fp {
            f: f_bits + hidden,
            e: e_bits as i32 - bias,
        }
    };
    let lower_closer = f_bits == 0 && e_bits > 1;
    let m_plus = Fp {
        f: 2 * v.f + 1,
        e: v.e - 1,
    };
    let m_minus = if lower_closer {
        Fp {
            f: 4 * v.f - 1,
            e: v.e - 2,
        }
    } else {
        Fp {
            f: 2 * v.f - 1,
            e: v.e - 1,
        }
    };
    let plus = m_plus.normalize();
    Bounds {
        minus: m_minus.normalize_to(plus.e),
        w: v.normalize(),
        plus,
    }
}

pub(super) fn boundaries_f32(x: f32) -> Bounds {
    // p = 24 (hidden bit included), bias = 127 + 23
    boundaries(u64::from(x.to_bits()), 24, 150)
}

pub(super) fn boundaries_f64(x: f64) -> Bounds {
    boundaries(x.to_bits(), 53, 1075)
}

const ALPHA: i32 = -60;

#[rustfmt::skip]
static CACHED: [(u64, i32, i32); 79] = [
    (0xAB70FE17C79AC6CA, -1060, -300), (0xFF77B1FCBEBCDC4F, -1034, -292),
    (0xBE5691EF416BD60C, -1007, -284), (0x8DD01FAD907FFC3C, -980, -276),
    (0xD3515C2831559A83, -954, -268), (0x9D71AC8FADA6C9B5, -927, -260),
    (0xEA9C227723EE8BCB, -901, -252), (0xAECC49914078536D, -874, -244),
    (0x823C12795DB6CE57, -847, -236), (0xC21094364DFB5637, -821, -228),
    (0x9096EA6F3848984F, -794, -220), (0xD77485CB25823AC7, -768, -212),
    (0xA086CFCD97BF97F4, -741, -204), (0xEF340A98172AACE5, -715, -196),
    (0xB23867FB2A35B28E, -688, -188), (0x84C8D4DFD2C63F3B, -661, -180),
    (0xC5DD44271AD3CDBA, -635, -172), (0x936B9FCEBB25C996, -608, -164),
    (0xDBAC6C247D62A584, -582, -156), (0xA3AB66580D5FDAF6, -555, -148),
    (0xF3E2F893DEC3F126, -529, -140), (0xB5B5ADA8AAFF80B8, -502, -132),
    (0x87625F056C7C4A8B, -475, -124), (0xC9BCFF6034C13053, -449, -116),
    (0x964E858C91BA2655, -422, -108), (0xDFF9772470297EBD, -396, -100),
    (0xA6DFBD9FB8E5B88F, -369, -92), (0xF8A95FCF88747D94, -343, -84),
    (0xB94470938FA89BCF, -316, -76), (0x8A08F0F8BF0F156B, -289, -68),
    (0xCDB02555653131B6, -263, -60), (0x993FE2C6D07B7FAC, -236, -52),
    (0xE45C10C42A2B3B06, -210, -44), (0xAA242499697392D3, -183, -36),
    (0xFD87B5F28300CA0E, -157, -28), (0xBCE5086492111AEB, -130, -20),
    (0x8CBCCC096F5088CC, -103, -12), (0xD1B71758E219652C, -77, -4),
    (0x9C40000000000000, -50, 4), (0xE8D4A51000000000, -24, 12),
    (0xAD78EBC5AC620000, 3, 20), (0x813F3978F8940984, 30, 28),
    (0xC097CE7BC90715B3, 56, 36), (0x8F7E32CE7BEA5C70, 83, 44),
    (0xD5D238A4ABE98068, 109, 52), (0x9F4F2726179A2245, 136, 60),
    (0xED63A231D4C4FB27, 162, 68), (0xB0DE65388CC8ADA8, 189, 76),
    (0x83C7088E1AAB65DB, 216, 84), (0xC45D1DF942711D9A, 242, 92),
    (0x924D692CA61BE758, 269, 100), (0xDA01EE641A708DEA, 295, 108),
    (0xA26DA3999AEF774A, 322, 116), (0xF209787BB47D6B85, 348, 124),
    (0xB454E4A179DD1877, 375, 132), (0x865B86925B9BC5C2, 402, 140),
    (0xC83553C5C8965D3D, 428, 148), (0x952AB45CFA97A0B3, 455, 156),
    (0xDE469FBD99A05FE3, 481, 164), (0xA59BC234DB398C25, 508, 172),
    (0xF6C69A72A3989F5C, 534, 180), (0xB7DCBF5354E9BECE, 561, 188),
    (0x88FCF317F22241E2, 588, 196), (0xCC20CE9BD35C78A5, 614, 204),
    (0x98165AF37B2153DF, 641, 212), (0xE2A0B5DC971F303A, 667, 220),
    (0xA8D9D1535CE3B396, 694, 228), (0xFB9B7CD9A4A7443C, 720, 236),
    (0xBB764C4CA7A44410, 747, 244), (0x8BAB8EEFB6409C1A, 774, 252),
    (0xD01FEF10A657842C, 800, 260), (0x9B10A4E5E9913129, 827, 268),
    (0xE7109BFBA19C0C9D, 853, 276), (0xAC2820D9623BF429, 880, 284),
    (0x80444B5E7AA7CF85, 907, 292), (0xBF21E44003ACDD2D, 933, 300),
    (0x8E679C2F5E44FF8F, 960, 308), (0xD433179D9C8CB841, 986, 316),
    (0x9E19DB92B4E31BA9, 1013, 324),
];

/// The cached power `c ~= 10^-k` that brings the exponent of `c * w` into range.
fn cached_power(e: i32) -> (Fp, i32) {
    let f = ALPHA - e - 1;
    let k = (f * 78913) / (1 << 18) + i32::from(f > 0);
    let index = ((300 + k + 7) / 8).clamp(0, CACHED.len() as i32 - 1) as usize;
    let (cf, ce, ck) = CACHED[index];
    (Fp { f: cf, e: ce }, ck)
}

fn largest_pow10(n: u32) -> (i32, u32) {
    let mut k = 1;
    let mut pow10 = 1u32;
    while k < 10 && n >= 10 * pow10 {
        pow10 *= 10;
        k += 1;
    }
    (k, pow10)
}

fn round(buf: &mut [u8], dist: u64, delta: u64, mut rest: u64, ten_k: u64) {
    let Some(last) = buf.last_mut() else {
        return;
    };
    while rest < dist
        && delta - rest >= ten_k
        && (rest + ten_k < dist || dist - rest > rest + ten_k - dist)
    {
        *last -= 1;
        rest += ten_k;
    }
}

/// Grisu2's digits of the value bounded by `b` and the decimal exponent of the last one:
/// `value = digits × 10^exp`.
pub(super) fn digits(b: Bounds) -> (Text, i32) {
    let (c, ck) = cached_power(b.plus.e);
    let w = b.w.mul(c);
    let wm = b.minus.mul(c);
    let wp = b.plus.mul(c);
    let m_minus = Fp {
        f: wm.f + 1,
        e: wm.e,
    };
    let m_plus = Fp {
        f: wp.f - 1,
        e: wp.e,
    };
    let mut exp = -ck;
    let mut buf = Text::<64>::new();
    let mut delta = m_plus.sub(m_minus).f;
    let mut dist = m_plus.sub(w).f;
    let shift = -m_plus.e;
    let one_f = 1u64 << shift;
    let mut p1 = (m_plus.f >> shift) as u32;
    let mut p2 = m_plus.f & (one_f - 1);
    let (k, mut pow10) = largest_pow10(p1);
    let mut n = k;
    while n > 0 {
        let d = p1 / pow10;
        let r = p1 % pow10;
        buf.push(b'0' + d as u8);
        p1 = r;
        n -= 1;
        let rest = (u64::from(p1) << shift) + p2;
        if rest <= delta {
            exp += n;
            let ten_n = u64::from(pow10) << shift;
            round(buf.bytes_mut(), dist, delta, rest, ten_n);
            return (buf, exp);
        }
        pow10 /= 10;
    }
    let mut m = 0;
    loop {
        p2 = p2.wrapping_mul(10);
        let d = p2 >> shift;
        let r = p2 & (one_f - 1);
        buf.push(b'0' + d as u8);
        p2 = r;
        m += 1;
        delta = delta.wrapping_mul(10);
        dist = dist.wrapping_mul(10);
        if p2 <= delta || buf.len() > 40 {
            break;
        }
    }
    exp -= m;
    round(buf.bytes_mut(), dist, delta, p2, one_f);
    (buf, exp)
}
