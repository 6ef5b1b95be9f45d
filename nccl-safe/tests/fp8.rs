//! fp8 data types through collectives: exact bit patterns of sums, maxima and
//! averages on sim ranks, elementwise ops, and the typed error when the NCCL behind
//! the communicator is older than 2.24 (emulated on the sim; the loaded library on
//! cuda).

use std::sync::Arc;
use std::thread;

use nccl_safe::{
    Communicator, Config, DType, Device, DeviceBuffer, Error, F8E4M3, F8E5M2, ReduceOp, Stream,
    UniqueId, Version,
};

/// Runs `f(rank, device, comm)` on two sim ranks (devices `first`, `first + 1`).
fn two_ranks<R: Send + 'static>(
    first: usize,
    config: Config,
    f: impl Fn(usize, Device, Communicator) -> R + Send + Sync + 'static,
) -> Vec<R> {
    let id = UniqueId::random();
    let f = Arc::new(f);
    let handles: Vec<_> = (0..2)
        .map(|rank| {
            let (f, config) = (f.clone(), config.clone());
            thread::spawn(move || {
                let dev = Device::sim(first + rank).unwrap();
                let comm = Communicator::init(&dev, rank, 2, &id, &config).unwrap();
                f(rank, dev, comm)
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

fn e4(bits: &[u8]) -> Vec<F8E4M3> {
    bits.iter().map(|&b| F8E4M3::from_bits(b)).collect()
}

fn e5(bits: &[u8]) -> Vec<F8E5M2> {
    bits.iter().map(|&b| F8E5M2::from_bits(b)).collect()
}

#[test]
fn e4m3_sum_max_and_avg_give_the_exact_bits() {
    // rank 0: 1.0, 448, 1.0, NaN, 2.0 ; rank 1: 0.0625, 448, 0.125, 1.0, -0.0
    let inputs = [
        e4(&[0x38, 0x7E, 0x38, 0x7F, 0x40]),
        e4(&[0x18, 0x7E, 0x20, 0x38, 0x80]),
    ];
    let out = two_ranks(0, Config::new(), move |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &inputs[rank]).unwrap();
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        let sum: Vec<u8> = x.to_vec(&s).unwrap().iter().map(|v| v.to_bits()).collect();
        // Max of (1, -2) and (4, -1); Avg of (2, 3) and (4, 448).
        let mx = [e4(&[0x38, 0xC0]), e4(&[0x48, 0xB8])][rank].clone();
        let mut m = DeviceBuffer::from_slice(&s, &mx).unwrap();
        comm.all_reduce_in_place(&mut m, ReduceOp::Max, &s).unwrap();
        let av = [e4(&[0x40, 0x44]), e4(&[0x48, 0x7E])][rank].clone();
        let mut a = DeviceBuffer::from_slice(&s, &av).unwrap();
        comm.all_reduce_in_place(&mut a, ReduceOp::Avg, &s).unwrap();
        let bits = |b: &DeviceBuffer<F8E4M3>| -> Vec<u8> {
            b.to_vec(&s).unwrap().iter().map(|v| v.to_bits()).collect()
        };
        (sum, bits(&m), bits(&a))
    });
    for (sum, max, avg) in out {
        // 1.0625 ties to even (1.0 = 0x38); 448 + 448 saturates (0x7E); 1.125 is 0x39;
        // NaN stays NaN (0x7F); 2 + -0 is 2 (0x40).
        assert_eq!(sum, vec![0x38, 0x7E, 0x39, 0x7F, 0x40]);
        assert_eq!(max, vec![0x48, 0xB8]); // 4.0, -1.0
        // (2 + 4) / 2 = 3.0 (0x44); 1.5 + 224 = 225.5 rounds to 224 (0x76).
        assert_eq!(avg, vec![0x44, 0x76]);
    }
}

#[test]
fn e5m2_sum_saturates_and_ties_to_even() {
    // rank 0: 57344, 1.0, 1.0, inf ; rank 1: 57344, 0.125, 0.25, 1.0
    let inputs = [e5(&[0x7B, 0x3C, 0x3C, 0x7C]), e5(&[0x7B, 0x30, 0x34, 0x3C])];
    let out = two_ranks(2, Config::new(), move |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut x = DeviceBuffer::from_slice(&s, &inputs[rank]).unwrap();
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        x.to_vec(&s)
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect::<Vec<u8>>()
    });
    for sum in out {
        // 114688 saturates to 57344 (0x7B); 1.125 ties to even 1.0 (0x3C); 1.25 is
        // exact (0x3D); an infinity saturates (0x7B).
        assert_eq!(sum, vec![0x7B, 0x3C, 0x3D, 0x7B]);
    }
}

#[test]
fn elementwise_ops_on_fp8_round_like_the_collectives() {
    let dev = Device::sim(4).unwrap();
    let s = Stream::new(&dev).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &e4(&[0x38, 0x7E, 0x01])).unwrap();
    x.scale(&s, F8E4M3::from_f32(3.0)).unwrap();
    let bits: Vec<u8> = x.to_vec(&s).unwrap().iter().map(|v| v.to_bits()).collect();
    // 3.0 (0x44); 1344 saturates (0x7E); 3 * 2^-9 is a subnormal (0x03).
    assert_eq!(bits, vec![0x44, 0x7E, 0x03]);
}

#[test]
fn an_older_nccl_refuses_fp8_naming_both_versions_and_the_communicator_stays_usable() {
    let old = Version::new(2, 21, 5);
    let out = two_ranks(
        5,
        Config::new().emulate_nccl_version(old),
        |rank, dev, comm| {
            let s = Stream::new(&dev).unwrap();
            let mut x = DeviceBuffer::from_slice(&s, &e4(&[0x38; 4])).unwrap();
            let err = comm
                .all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
                .unwrap_err();
            // The refused call took no position: the next collective still matches.
            let mut y = DeviceBuffer::from_slice(&s, &[rank as f32 + 1.0; 4]).unwrap();
            comm.all_reduce_in_place(&mut y, ReduceOp::Sum, &s).unwrap();
            (err, y.to_vec(&s).unwrap())
        },
    );
    for (err, y) in out {
        match &err {
            Error::UnsupportedByNccl {
                feature,
                loaded,
                needs,
            } => {
                assert_eq!(*feature, "f8e4m3");
                assert_eq!(*loaded, old);
                assert_eq!(*needs, Version::new(2, 24, 3));
            }
            other => panic!("expected UnsupportedByNccl, got {other:?}"),
        }
        assert_eq!(
            err.to_string(),
            "f8e4m3 unsupported by NCCL 2.21.5, needs 2.24.3"
        );
        assert_eq!(y, vec![3.0; 4]);
    }
    // A new enough emulated NCCL runs it.
    let ok = two_ranks(
        5,
        Config::new().emulate_nccl_version(Version::new(2, 24, 3)),
        |_, dev, comm| {
            let s = Stream::new(&dev).unwrap();
            let mut x = DeviceBuffer::from_slice(&s, &e5(&[0x3C; 2])).unwrap();
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
            x.to_vec(&s).unwrap()[0].to_bits()
        },
    );
    assert_eq!(ok, vec![0x40, 0x40]); // 1 + 1 = 2
    assert_eq!(DType::F8E4M3.size(), 1);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_fp8_all_reduce_or_a_typed_error_naming_the_loaded_version() {
    let dev = Device::cuda(0).unwrap();
    let comm = Communicator::init(&dev, 0, 1, &UniqueId::new().unwrap(), &Config::new()).unwrap();
    let s = Stream::new(&dev).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &e4(&[0x38, 0x7E])).unwrap();
    let loaded = nccl_safe::nccl_version().unwrap();
    match comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s) {
        Ok(()) => {
            assert!(loaded >= Version::new(2, 24, 3), "{loaded}");
            let bits: Vec<u8> = x.to_vec(&s).unwrap().iter().map(|v| v.to_bits()).collect();
            assert_eq!(bits, vec![0x38, 0x7E]); // one rank: the input
        }
        Err(Error::UnsupportedByNccl { loaded: l, .. }) => {
            assert_eq!(l, loaded);
            assert!(loaded < Version::new(2, 24, 3));
        }
        Err(e) => panic!("{e}"),
    }
}
