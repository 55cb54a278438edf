import numpy as np, sys
W=H=1024
d=np.loadtxt(sys.argv[1], skiprows=10, dtype=np.float32)
cx,cy,cz,r=d[:,0],d[:,1],d[:,2],d[:,3]
N=len(cx)
scale=np.float32(1024)
rr=(r*np.float32(1.0001)+np.float32(1e-6))**2
def pix(i): return (i.astype(np.float32)+np.float32(0.5))/scale
# tile pairs
T=32
tx0=np.clip(np.floor((cx-r)*scale-0.5).astype(int)//T,0,W//T-1); tx1=np.clip(np.ceil((cx+r)*scale-0.5).astype(int)//T,0,W//T-1)
ty0=np.clip(np.floor((cy-r)*scale-0.5).astype(int)//T,0,H//T-1); ty1=np.clip(np.ceil((cy+r)*scale-0.5).astype(int)//T,0,H//T-1)
def touch(ci, x0,y0,x1,y1):
    qx=np.clip(cx[ci],x0,x1); qy=np.clip(cy[ci],y0,y1)
    dx=cx[ci]-qx; dy=cy[ci]-qy
    return dx*dx+dy*dy<=rr[ci]
pc=[];pt=[]
for ox in range(4):
  for oy in range(4):
    tx=tx0+ox; ty=ty0+oy
    ok=(tx<=tx1)&(ty<=ty1)
    ci=np.nonzero(ok)[0]; txx=tx[ok]; tyy=ty[ok]
    hit=touch(ci,pix(txx*T),pix(tyy*T),pix(txx*T+T-1),pix(tyy*T+T-1))
    pc.append(ci[hit]); pt.append((tyy*(W//T)+txx)[hit])
pc=np.concatenate(pc); pt=np.concatenate(pt)
o=np.lexsort((pc,pt)); pc=pc[o]; pt=pt[o]
starts=np.searchsorted(pt,np.arange((W//T)*(H//T)))
pos=np.arange(len(pc))-starts[pt]
print("pairs",len(pc), "per tile", len(pc)/1024)
key=pt.astype(np.int64)*N+pc
# box hits: boxes 8x4
BW,BH=int(__import__("os").environ.get("BW","8")),int(__import__("os").environ.get("BH","4"))
bx0=np.clip(np.floor((cx-r)*scale-0.5).astype(int)//BW,0,W//BW-1); bx1=np.clip(np.ceil((cx+r)*scale-0.5).astype(int)//BW,0,W//BW-1)
by0=np.clip(np.floor((cy-r)*scale-0.5).astype(int)//BH,0,H//BH-1); by1=np.clip(np.ceil((cy+r)*scale-0.5).astype(int)//BH,0,H//BH-1)
print("max box span", (bx1-bx0).max(), (by1-by0).max())
hc=[];hb=[]
for ox in range(int((bx1-bx0).max())+1):
  for oy in range(int((by1-by0).max())+1):
    bx=bx0+ox; by=by0+oy
    ok=(bx<=bx1)&(by<=by1)
    ci=np.nonzero(ok)[0]; bxx=bx[ok]; byy=by[ok]
    hit=touch(ci,pix(bxx*BW),pix(byy*BH),pix(bxx*BW+BW-1),pix(byy*BH+BH-1))
    hc.append(ci[hit]); hb.append((byy*(W//BW)+bxx)[hit])
hc=np.concatenate(hc); hb=np.concatenate(hb)
bxx=hb%(W//BW); byy=hb//(W//BW)
tile=(byy//(T//BH))*(W//T)+bxx//(T//BW)
# row group id within tile: warp = (bx%4) + 4*((by%8)//4), q = by%4
px0=(bxx*BW)%32; py0=(byy*BH)%32
warp=px0//8+4*(py0//16); q=(px0%8)//BW+(8//BW)*((py0%16)//BH)
k2=tile.astype(np.int64)*N+hc
idx=np.searchsorted(key,k2); assert (key[idx]==k2).all()
p=pos[idx]
batch=p//1024; grp=(p%1024)//32
print("box hits",len(hc))
np.savez(f"hits_{BW}x{BH}.npz",tile=tile,warp=warp,q=q,batch=batch,grp=grp,p=p)
