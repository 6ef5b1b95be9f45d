//! Tests of the wire format: the decoder on arbitrary and frame-like bytes (never a
//! panic, never more than the limit, nothing made up), encode/decode round trips, and
//! named errors for malformed bodies.

use super::*;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    vec(any::<u8>(), 0..24)
}

fn text() -> impl Strategy<Value = String> {
    ".{0,12}"
}

fn frame() -> impl Strategy<Value = Frame> {
    let code = prop_oneof![
        Just(ErrorCode::Rejected),
        Just(ErrorCode::Protocol),
        Just(ErrorCode::InvalidKey),
        Just(ErrorCode::Counter),
        Just(ErrorCode::Busy),
    ];
    prop_oneof![
        (any::<u32>(), option::of(text()), option::of(text())).prop_map(|(version, token, job)| {
            Frame::Hello {
                version,
                token,
                job,
            }
        }),
        (text(), bytes()).prop_map(|(key, value)| Frame::Set { key, value }),
        text().prop_map(|key| Frame::Get { key }),
        (vec(text(), 0..4), any::<u64>())
            .prop_map(|(keys, timeout_ms)| Frame::Wait { keys, timeout_ms }),
        (text(), any::<i64>()).prop_map(|(key, delta)| Frame::Add { key, delta }),
        (text(), option::of(bytes()), bytes()).prop_map(|(key, expected, new)| Frame::CompareSet {
            key,
            expected,
            new
        }),
        text().prop_map(|key| Frame::Delete { key }),
        (text(), bytes()).prop_map(|(key, value)| Frame::OnDisconnectCreate { key, value }),
        Just(Frame::Goodbye),
        Just(Frame::Nudge),
        (text(), any::<u64>()).prop_map(|(key, timeout_ms)| Frame::WaitGet { key, timeout_ms }),
        Just(Frame::Ok),
        option::of(bytes()).prop_map(Frame::Value),
        any::<i64>().prop_map(Frame::Int),
        any::<bool>().prop_map(Frame::Bool),
        vec(text(), 0..4).prop_map(|missing| Frame::WaitTimeout { missing }),
        (text(), any::<u64>(), any::<u64>()).prop_map(|(what, size, limit)| Frame::TooLarge {
            what,
            size,
            limit
        }),
        (code, text()).prop_map(|(code, message)| Frame::Error { code, message }),
    ]
}

/// Bytes that often look like a frame: a plausible length, a real opcode, noise.
fn frame_like() -> impl Strategy<Value = Vec<u8>> {
    let opcodes = prop_oneof![(1u8..=0x0b), (0x81u8..=0x87), any::<u8>()];
    (opcodes, vec(any::<u8>(), 0..48), any::<i8>()).prop_map(|(op, body, skew)| {
        let len = (body.len() as i64 + 1 + i64::from(skew % 4)).max(0) as u32;
        let mut out = len.to_le_bytes().to_vec();
        out.push(op);
        out.extend(body);
        out
    })
}

const SMALL: Limits = Limits { max_frame: 64 };

fn check_decode(buf: &[u8]) -> Result<(), TestCaseError> {
    match decode(buf, &SMALL) {
        Ok(Some((f, used))) => {
            prop_assert!(used <= buf.len() && used <= HEADER_LEN + 64);
            // What was decoded is exactly what was consumed: nothing was made up.
            prop_assert_eq!(encode(&f, &SMALL).unwrap(), buf[..used].to_vec());
        }
        Ok(None) => {}
        Err(FrameError::TooLarge { size, limit }) => prop_assert!(size > limit),
        Err(FrameError::Malformed(_)) => {}
    }
    Ok(())
}

proptest! {
    // Fewer cases under Miri, which interprets every step.
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 16 } else { 256 }))]

    #[test]
    fn decoding_arbitrary_bytes_never_panics_nor_overreaches(buf in vec(any::<u8>(), 0..96)) {
        check_decode(&buf)?;
    }

    #[test]
    fn decoding_frame_like_bytes_never_panics_nor_overreaches(buf in frame_like()) {
        check_decode(&buf)?;
    }

    #[test]
    fn decode_inverts_encode_and_waits_for_every_prefix(f in frame(), tail in bytes()) {
        let wire = encode(&f, &Limits::default()).unwrap();
        prop_assert_eq!(wire.len() as u64, encoded_len(&f));
        for cut in 0..wire.len() {
            prop_assert_eq!(decode(&wire[..cut], &Limits::default()), Ok(None));
        }
        let mut more = wire.clone();
        more.extend(&tail);
        prop_assert_eq!(decode(&more, &Limits::default()), Ok(Some((f, wire.len()))));
    }
}

#[test]
fn oversized_and_lying_lengths_are_refused_before_allocating() {
    let huge = u32::MAX.to_le_bytes();
    assert_eq!(
        decode(&huge, &Limits::default()),
        Err(FrameError::TooLarge {
            size: u64::from(u32::MAX),
            limit: u64::from(DEFAULT_MAX_FRAME)
        })
    );
    // A wait that claims four billion keys in a 9-byte body.
    let mut lie = 9u32.to_le_bytes().to_vec();
    lie.push(op::WAIT);
    lie.extend(u32::MAX.to_le_bytes());
    lie.extend(0u32.to_le_bytes());
    let err = decode(&lie, &Limits::default()).unwrap_err();
    assert!(err.to_string().contains("4294967295 strings"), "{err}");
    // A key claiming more bytes than the body has.
    let mut lie = 5u32.to_le_bytes().to_vec();
    lie.push(op::GET);
    lie.extend(1000u32.to_le_bytes());
    let err = decode(&lie, &Limits::default()).unwrap_err();
    assert!(err.to_string().contains("1000 bytes"), "{err}");
    let set = Frame::Set {
        key: "k".into(),
        value: vec![0; 100],
    };
    assert!(matches!(
        encode(&set, &SMALL),
        Err(FrameError::TooLarge { .. })
    ));
}

#[test]
fn malformed_bodies_name_what_is_wrong() {
    let cases: [(&[u8], &str); 5] = [
        (&[0, 0, 0, 0], "empty"),
        (&[1, 0, 0, 0, 0x42], "unknown opcode 0x42"),
        (&[2, 0, 0, 0, op::GOODBYE, 7], "1 trailing bytes"),
        (&[2, 0, 0, 0, op::BOOL, 2], "bool byte is 2"),
        (&[7, 0, 0, 0, op::GET, 2, 0, 0, 0, 0xff, 0xfe], "not UTF-8"),
    ];
    for (bytes, needle) in cases {
        match decode(bytes, &Limits::default()) {
            Err(FrameError::Malformed(m)) => assert!(m.contains(needle), "{m}"),
            other => panic!("{bytes:?}: {other:?}"),
        }
    }
}
