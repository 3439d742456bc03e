import { moduleText } from "../../scripts/build_dot_kernel.ts";
import { DOT_KERNEL_BASE64 } from "../../lib/dense/kernel/dot_kernel_bytes.ts";
import { testKernelFiles } from "../support/kernel_files.ts";

testKernelFiles("dot", "lib/dense/kernel", moduleText, DOT_KERNEL_BASE64);
