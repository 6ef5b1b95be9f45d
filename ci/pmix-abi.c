/* Prints the sizes and offsets of the PMIx types collectives/src/launch/pmix.rs
 * declares, from the installed header, in the form its test compares with. */
#include <stddef.h>
#include <stdio.h>
#include <pmix.h>

int main(void) {
    printf("proc %zu %zu\n", sizeof(pmix_proc_t), offsetof(pmix_proc_t, rank));
    printf("value %zu %zu\n", sizeof(pmix_value_t), offsetof(pmix_value_t, data));
    printf("info %zu %zu %zu\n", sizeof(pmix_info_t), offsetof(pmix_info_t, flags),
           offsetof(pmix_info_t, value));
    printf("byte_object %zu\n", sizeof(pmix_byte_object_t));
    printf("lengths %d %d wildcard %u global %d\n", PMIX_MAX_NSLEN + 1, PMIX_MAX_KEYLEN + 1,
           (unsigned)PMIX_RANK_WILDCARD, PMIX_GLOBAL);
    printf("types %d %d %d %d %d\n", PMIX_INT, PMIX_UINT16, PMIX_UINT32, PMIX_BYTE_OBJECT,
           PMIX_PROC_RANK);
    return 0;
}
