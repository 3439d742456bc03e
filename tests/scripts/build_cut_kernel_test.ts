import { moduleText } from "../../scripts/build_cut_kernel.ts";
import { CUT_KERNEL_BASE64 } from "../../lib/retrieval/kernel/cut_kernel_bytes.ts";
import { testKernelFiles } from "../support/kernel_files.ts";

testKernelFiles("cut", "lib/retrieval/kernel", moduleText, CUT_KERNEL_BASE64);
