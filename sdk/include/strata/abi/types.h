/* Plain data shared by every ABI table: element types, reduction operators,
 * collective kinds, device identifiers and buffer descriptors. */
#ifndef STRATA_ABI_TYPES_H_
#define STRATA_ABI_TYPES_H_

#include <stdint.h>

/* Element types. Values are fixed forever; new types are appended. */
typedef int32_t strata_dtype_t;
enum {
  STRATA_F32 = 0,
  STRATA_F64 = 1,
  STRATA_F16 = 2,  /* IEEE 754 binary16 */
  STRATA_BF16 = 3, /* bfloat16: the top 16 bits of an f32 */
  STRATA_I32 = 4,
  STRATA_I64 = 5,
  STRATA_U8 = 6,
  STRATA_DTYPE_COUNT = 7
};

/* Reduction operators. MEAN is SUM divided by the number of replicas in the
 * team; for integer types the division truncates toward zero. */
typedef int32_t strata_redop_t;
enum {
  STRATA_SUM = 0,
  STRATA_PROD = 1,
  STRATA_MIN = 2,
  STRATA_MAX = 3,
  STRATA_MEAN = 4,
  STRATA_REDOP_COUNT = 5
};

/* Collective operations. `count` in a call always means elements per replica
 * in the *smaller* of input and output (see strata_call_t). */
typedef int32_t strata_op_t;
enum {
  STRATA_ALL_REDUCE = 0,
  STRATA_BROADCAST = 1,
  STRATA_ALL_GATHER = 2,
  STRATA_REDUCE_SCATTER = 3,
  STRATA_REDUCE = 4,
  STRATA_BARRIER = 5,
  STRATA_OP_COUNT = 6
};

/* A device type is identified by the small integer the host assigned when the
 * type was registered (see strata_registrar_t.add_device_type). The index is
 * the device's ordinal within its type. Index -1 names host (pageable) memory
 * in copy functions. */
typedef struct strata_device {
  uint32_t type;
  int32_t index;
} strata_device_t;

#define STRATA_HOST_INDEX (-1)

/* A buffer is described, never owned: the caller allocated it and frees it. */
typedef struct strata_buffer {
  void* data;             /* may be NULL only when count == 0 */
  strata_dtype_t dtype;
  uint64_t count;         /* elements, not bytes */
  strata_device_t device;
} strata_buffer_t;

#endif /* STRATA_ABI_TYPES_H_ */
