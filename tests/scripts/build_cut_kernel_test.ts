import { moduleText } from "../../scripts/build_cut_kernel.ts";
import { CUT_KERNEL_BASE64 } from "../../lib/lexical/kernel/cut_kernel_bytes.ts";
import { testKernelFiles } from "../support/kernel_files.ts";

testKernelFiles("cut", "lib/lexical/kernel", moduleText, CUT_KERNEL_BASE64);
